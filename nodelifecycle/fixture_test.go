package nodelifecycle

import (
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// t0 is the reference time of the tests.
var t0 = time.Date(2020, 1, 1, 12, 0, 0, 0, time.UTC)

func at(d time.Duration) time.Time { return t0.Add(d) }

func mt(t time.Time) metav1.Time { return metav1.NewTime(t) }

// cond builds a node condition with the given heartbeat and transition times.
func cond(t v1.NodeConditionType, s v1.ConditionStatus, hb, tr time.Time) v1.NodeCondition {
	return v1.NodeCondition{Type: t, Status: s, LastHeartbeatTime: mt(hb), LastTransitionTime: mt(tr)}
}

// readyCond builds a Ready condition.
func readyCond(s v1.ConditionStatus, hb, tr time.Time) v1.NodeCondition {
	return cond(v1.NodeReady, s, hb, tr)
}

// mkNode builds a node named name, created at created, with the given conditions.
func mkNode(name string, created time.Time, conds ...v1.NodeCondition) *v1.Node {
	return &v1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: mt(created), UID: types.UID("uid-" + name)},
		Status:     v1.NodeStatus{Conditions: conds},
	}
}

// mkLease builds a node Lease renewed at renew (nil renew: no RenewTime) with the given
// resourceVersion.
func mkLease(name, rv string, renew *time.Time) *coordinationv1.Lease {
	l := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: v1.NamespaceNodeLease, ResourceVersion: rv}}
	if renew != nil {
		m := metav1.NewMicroTime(*renew)
		l.Spec.RenewTime = &m
	}
	return l
}

func ptr[T any](v T) *T { return &v }

// withLabels returns node with the labels set.
func withLabels(n *v1.Node, kv ...string) *v1.Node {
	if n.Labels == nil {
		n.Labels = map[string]string{}
	}
	for i := 0; i+1 < len(kv); i += 2 {
		n.Labels[kv[i]] = kv[i+1]
	}
	return n
}

// noBreaker is the default configuration with the lease circuit breaker off.
func noBreaker() Config {
	c := Config{}
	c.DisableLeaseCircuitBreaker = true
	return c
}

// savedLease builds a SavedLease.
func savedLease(rv string, renew *time.Time) *SavedLease {
	s := &SavedLease{ResourceVersion: rv}
	if renew != nil {
		m := metav1.NewMicroTime(*renew)
		s.RenewTime = &m
	}
	return s
}
