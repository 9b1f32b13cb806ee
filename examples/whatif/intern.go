package main

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// interner interns the strings that repeat across a snapshot's objects
// (namespaces, node names, label values, tolerations, images, condition
// types and reasons), so that the decoded snapshot holds one copy of each.
type interner map[string]string

func (t interner) of(s string) string {
	if s == "" {
		return ""
	}
	if v, ok := t[s]; ok {
		return v
	}
	t[s] = s
	return s
}

func (t interner) meta(m *metav1.ObjectMeta) {
	m.Namespace = t.of(m.Namespace)
	m.GenerateName = t.of(m.GenerateName)
	for i := range m.OwnerReferences {
		o := &m.OwnerReferences[i]
		o.APIVersion, o.Kind, o.Name = t.of(o.APIVersion), t.of(o.Kind), t.of(o.Name)
		o.UID = types.UID(t.of(string(o.UID)))
	}
	for k, v := range m.Labels {
		m.Labels[k] = t.of(v)
	}
}

func (t interner) pod(p *corev1.Pod) {
	t.meta(&p.ObjectMeta)
	s := &p.Spec
	s.NodeName, s.PriorityClassName, s.SchedulerName = t.of(s.NodeName), t.of(s.PriorityClassName), t.of(s.SchedulerName)
	s.ServiceAccountName, s.DeprecatedServiceAccount = t.of(s.ServiceAccountName), t.of(s.DeprecatedServiceAccount)
	s.RestartPolicy, s.DNSPolicy = corev1.RestartPolicy(t.of(string(s.RestartPolicy))), corev1.DNSPolicy(t.of(string(s.DNSPolicy)))
	for i := range s.Tolerations {
		tol := &s.Tolerations[i]
		tol.Key, tol.Value = t.of(tol.Key), t.of(tol.Value)
		tol.Operator, tol.Effect = corev1.TolerationOperator(t.of(string(tol.Operator))), corev1.TaintEffect(t.of(string(tol.Effect)))
	}
	for _, cs := range [][]corev1.Container{s.Containers, s.InitContainers} {
		for i := range cs {
			c := &cs[i]
			c.Name, c.Image = t.of(c.Name), t.of(c.Image)
			c.ImagePullPolicy = corev1.PullPolicy(t.of(string(c.ImagePullPolicy)))
			c.TerminationMessagePath = t.of(c.TerminationMessagePath)
			c.TerminationMessagePolicy = corev1.TerminationMessagePolicy(t.of(string(c.TerminationMessagePolicy)))
		}
	}
	st := &p.Status
	st.Phase, st.QOSClass = corev1.PodPhase(t.of(string(st.Phase))), corev1.PodQOSClass(t.of(string(st.QOSClass)))
	st.HostIP = t.of(st.HostIP)
	for i := range st.HostIPs {
		st.HostIPs[i].IP = t.of(st.HostIPs[i].IP)
	}
	for i := range st.Conditions {
		c := &st.Conditions[i]
		c.Type, c.Status = corev1.PodConditionType(t.of(string(c.Type))), corev1.ConditionStatus(t.of(string(c.Status)))
		c.Reason, c.Message = t.of(c.Reason), t.of(c.Message)
	}
	for _, cs := range [][]corev1.ContainerStatus{st.ContainerStatuses, st.InitContainerStatuses} {
		for i := range cs {
			cs[i].Name = t.of(cs[i].Name)
		}
	}
}
