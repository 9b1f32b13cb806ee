package taints_test

import (
	"errors"
	"fmt"

	"github.com/evictkit/eviction/taints"
	v1 "k8s.io/api/core/v1"
)

func ExampleParse() {
	for _, spec := range []string{"dedicated=gpu:NoSchedule", "example.com/maintenance:NoExecute", "flaky", "a=b", "k:noschedule"} {
		t, err := taints.Parse(spec)
		if err != nil {
			fmt.Printf("%-36s error (effect: %v, key: %v)\n", spec, errors.Is(err, taints.ErrInvalidEffect), errors.Is(err, taints.ErrInvalidKey))
			continue
		}
		fmt.Printf("%-36s key=%q value=%q effect=%q\n", spec, t.Key, t.Value, t.Effect)
	}
	// Output:
	// dedicated=gpu:NoSchedule             key="dedicated" value="gpu" effect="NoSchedule"
	// example.com/maintenance:NoExecute    key="example.com/maintenance" value="" effect="NoExecute"
	// flaky                                key="flaky" value="" effect=""
	// a=b                                  error (effect: false, key: true)
	// k:noschedule                         error (effect: true, key: false)
}

func ExampleParseSpecs() {
	add, remove, err := taints.ParseSpecs([]string{"dedicated=gpu:NoSchedule", "maintenance-", "zone=a:NoExecute-"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("add: %s\nremove: %s\n", taints.Specs(add), taints.Specs(remove))

	_, _, err = taints.ParseSpecs([]string{"k=1:NoSchedule", "k=2:NoSchedule"})
	fmt.Println(errors.Is(err, taints.ErrDuplicate), err)
	// Output:
	// add: dedicated=gpu:NoSchedule
	// remove: maintenance,zone:NoExecute
	// true taints: duplicated taints with the same key and effect: {k 2 NoSchedule <nil>}
}

func ExampleFormat() {
	fmt.Println(taints.Format(v1.Taint{Key: "k", Value: "v", Effect: v1.TaintEffectNoExecute}))
	fmt.Println(taints.Format(v1.Taint{Key: "k", Value: "v"}))
	fmt.Printf("%s\n", taints.Spec(v1.Taint{Key: "k", Effect: v1.TaintEffectNoSchedule}))
	// Output:
	// k=v:NoExecute
	// k=v:
	// k:NoSchedule
}

func ExampleApply() {
	node := []v1.Taint{
		{Key: "dedicated", Value: "gpu", Effect: v1.TaintEffectNoSchedule},
		{Key: "maintenance", Effect: v1.TaintEffectNoExecute},
	}
	add, remove, _ := taints.ParseSpecs([]string{"dedicated=db:NoSchedule", "maintenance-"})

	_, _, err := taints.Apply(node, add, remove, taints.ApplyOptions{NodeName: "n1"})
	fmt.Println(err)

	got, op, _ := taints.Apply(node, add, remove, taints.ApplyOptions{Overwrite: true, NodeName: "n1"})
	fmt.Printf("node/n1 %s: %s\n", op, taints.Specs(got))
	// Output:
	// taints: node n1 already has dedicated taint(s) with same effect(s) and --overwrite is false
	// node/n1 modified: dedicated=db:NoSchedule
}

func ExampleDiff() {
	desired := []v1.Taint{{Key: taints.KeyMemoryPressure, Effect: v1.TaintEffectNoSchedule}}
	current := []v1.Taint{
		{Key: taints.KeyMemoryPressure, Value: "stale", Effect: v1.TaintEffectNoSchedule},
		{Key: taints.KeyDiskPressure, Effect: v1.TaintEffectNoSchedule},
	}
	add, remove := taints.Diff(desired, current)
	fmt.Printf("add %d, remove %s\n", len(add), taints.Specs(remove))
	// Output:
	// add 0, remove node.kubernetes.io/disk-pressure:NoSchedule
}

func ExampleForCondition() {
	node := &v1.Node{Status: v1.NodeStatus{Conditions: []v1.NodeCondition{
		{Type: v1.NodeReady, Status: v1.ConditionUnknown},
		{Type: v1.NodePIDPressure, Status: v1.ConditionTrue},
	}}}
	fmt.Println(taints.Specs(taints.ConditionTaints(node)))
	_, ok := taints.ForCondition(v1.NodeReady, v1.ConditionTrue)
	fmt.Println(ok)
	// Output:
	// node.kubernetes.io/unreachable:NoSchedule,node.kubernetes.io/pid-pressure:NoSchedule
	// false
}

func ExampleValidateList() {
	errs := taints.ValidateList([]v1.Taint{
		{Key: "dedicated", Value: "gpu", Effect: v1.TaintEffectNoSchedule},
		{Key: "dedicated", Value: "db", Effect: v1.TaintEffectNoSchedule}, // same key and effect
		{Key: "maintenance"}, // no effect
	}, nil)
	for _, err := range errs {
		fmt.Println(err)
	}
	fmt.Println(taints.Validate(v1.Taint{Key: "maintenance"})) // the lighter check allows it
	// Output:
	// metadata.taints[1]: Duplicate value: {"key":"dedicated","value":"db","effect":"NoSchedule"}: taints must be unique by key and effect pair
	// metadata.taints[2].effect: Required value
	// <nil>
}
