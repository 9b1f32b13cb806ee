package tolerations_test

import (
	"fmt"

	"github.com/evictkit/eviction/taints"
	"github.com/evictkit/eviction/tolerations"
	v1 "k8s.io/api/core/v1"
)

func seconds(s int64) *int64 { return &s }

func ExampleTolerates() {
	taint := v1.Taint{Key: "dedicated", Value: "gpu", Effect: v1.TaintEffectNoSchedule}
	for _, tol := range []v1.Toleration{
		{Key: "dedicated", Operator: v1.TolerationOpEqual, Value: "gpu"},
		{Key: "dedicated", Operator: v1.TolerationOpEqual, Value: "db"},
		{Key: "dedicated", Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute},
		{Operator: v1.TolerationOpExists}, // empty key + Exists: everything
	} {
		fmt.Println(tolerations.Tolerates(&tol, &taint, tolerations.Options{}))
	}

	// Lt and Gt compare integers, only with the (alpha) comparison operators enabled.
	sla := v1.Taint{Key: "sla", Value: "950", Effect: v1.TaintEffectNoSchedule}
	gt := v1.Toleration{Key: "sla", Operator: v1.TolerationOpGt, Value: "750"}
	fmt.Println(tolerations.Tolerates(&gt, &sla, tolerations.Options{}),
		tolerations.Tolerates(&gt, &sla, tolerations.Options{ComparisonOperators: true}))
	// Output:
	// true
	// false
	// false
	// true
	// false true
}

// Only the first toleration that tolerates a taint counts, so the order of the tolerations
// decides how long the pod may stay.
func ExampleMatching() {
	taint := []v1.Taint{{Key: "k", Effect: v1.TaintEffectNoExecute}}
	forever := v1.Toleration{Key: "k", Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute}
	minute := v1.Toleration{Key: "k", Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute, TolerationSeconds: seconds(60)}

	for _, tols := range [][]v1.Toleration{{forever, minute}, {minute, forever}} {
		used, all := tolerations.Matching(taint, tols, tolerations.Options{})
		d, stay := tolerations.MinTolerationTime(used)
		fmt.Printf("all=%v forever=%v after=%v\n", all, stay, d)
	}
	// Output:
	// all=true forever=true after=0s
	// all=true forever=false after=1m0s
}

func ExampleMinTolerationTime() {
	for _, tols := range [][]v1.Toleration{
		nil,
		{{TolerationSeconds: nil}},
		{{TolerationSeconds: seconds(300)}, {TolerationSeconds: nil}, {TolerationSeconds: seconds(60)}},
		{{TolerationSeconds: seconds(300)}, {TolerationSeconds: seconds(-1)}},
		{{TolerationSeconds: seconds(18446744074)}}, // upstream wraps this to 290ms
	} {
		d, forever := tolerations.MinTolerationTime(tols)
		fmt.Println(d, forever)
	}
	// Output:
	// 0s false
	// 0s true
	// 1m0s false
	// 0s false
	// 0s true
}

func ExampleNoExecuteDecision() {
	node := []v1.Taint{
		{Key: taints.KeyUnreachable, Effect: v1.TaintEffectNoExecute},
		{Key: "dedicated", Value: "db", Effect: v1.TaintEffectNoSchedule}, // never evicts
	}
	plain, _ := tolerations.WithDefaultSeconds(nil, tolerations.DefaultSecondsOptions{})
	for _, tols := range [][]v1.Toleration{
		nil,
		plain, // what admission gives every pod: 300 s
		tolerations.DaemonSet(tolerations.DaemonSetOptions{}),
	} {
		fmt.Println(tolerations.NoExecuteDecision(node, tols, tolerations.Options{}))
	}
	// Output:
	// evict now
	// evict after 5m0s
	// never
}

func ExampleDecision_DecidingTaint() {
	node := []v1.Taint{
		{Key: "dedicated", Value: "db", Effect: v1.TaintEffectNoSchedule}, // never decides
		{Key: taints.KeyNotReady, Effect: v1.TaintEffectNoExecute},
		{Key: taints.KeyUnreachable, Effect: v1.TaintEffectNoExecute},
	}
	tols := []v1.Toleration{
		{Key: taints.KeyNotReady, Operator: v1.TolerationOpExists, TolerationSeconds: seconds(-3)},
		{Key: taints.KeyUnreachable, Operator: v1.TolerationOpExists, TolerationSeconds: seconds(-5)},
	}
	// Both negative seconds count as 0, so -5 is no smaller than -3: of the taints with the
	// minimum, the first decides.
	d := tolerations.NoExecuteDecision(node, tols, tolerations.Options{})
	t, _ := d.DecidingTaint(node)
	fmt.Println(d, d.TaintIndex, t.Key)
	// Output:
	// evict after 0s 1 node.kubernetes.io/not-ready
}

func ExampleFindUntolerated() {
	node := []v1.Taint{
		{Key: "a", Effect: v1.TaintEffectNoSchedule},
		{Key: "b", Effect: v1.TaintEffectPreferNoSchedule},
		{Key: "c", Effect: v1.TaintEffectNoExecute},
	}
	tols := []v1.Toleration{{Key: "a", Operator: v1.TolerationOpExists}}
	t, found := tolerations.FindUntolerated(node, tols, tolerations.NoScheduleOrNoExecute, tolerations.Options{})
	fmt.Println(taints.Format(t), found)
	// Output:
	// c:NoExecute true
}

func ExampleWithDefaultSeconds() {
	tols, changed := tolerations.WithDefaultSeconds([]v1.Toleration{
		{Key: taints.KeyUnreachable, Operator: v1.TolerationOpExists, TolerationSeconds: seconds(700)},
	}, tolerations.DefaultSecondsOptions{})
	fmt.Println(changed)
	for _, t := range tols {
		fmt.Println(t.Key, t.Effect, *t.TolerationSeconds)
	}
	// Output:
	// true
	// node.kubernetes.io/unreachable  700
	// node.kubernetes.io/not-ready NoExecute 300
}

func ExampleAnyTolerates() {
	taint := v1.Taint{Key: taints.KeyNotReady, Effect: v1.TaintEffectNoExecute}
	tols := []v1.Toleration{
		{Key: "dedicated", Operator: v1.TolerationOpEqual, Value: "gpu"},
		{Key: taints.KeyNotReady, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute},
	}
	fmt.Println(tolerations.AnyTolerates(tols, &taint, tolerations.Options{}))
	fmt.Println(tolerations.AnyTolerates(tols[:1], &taint, tolerations.Options{}))
	// Output:
	// true
	// false
}

func ExampleValidate() {
	errs := tolerations.Validate([]v1.Toleration{
		{Key: "dedicated", Operator: v1.TolerationOpEqual, Value: "gpu"},            // valid
		{Operator: v1.TolerationOpEqual, Value: "x"},                                // empty key needs Exists
		{Key: "sla", Operator: v1.TolerationOpGt, Value: "950"},                     // Gt needs the gate
		{Key: "k", Operator: v1.TolerationOpExists, TolerationSeconds: seconds(60)}, // seconds need NoExecute
	}, nil, tolerations.Options{})
	for _, err := range errs {
		fmt.Println(err.Type, err.Field)
	}
	// Output:
	// Invalid value spec.tolerations[1].operator
	// Unsupported value spec.tolerations[2].operator
	// Invalid value spec.tolerations[3].effect
}
