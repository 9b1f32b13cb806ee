package preemptionplugin_test

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/evictkit/eviction/scheduler/preemptionplugin"
)

// ExampleDecodeArgs reads the args of a pluginConfig entry as kube-scheduler
// hands them to the plugin's factory: absent fields keep DefaultPreemption's
// defaults, the two options are off unless set.
func ExampleDecodeArgs() {
	raw := &runtime.Unknown{Raw: []byte("strictPDB: true\nminCandidateNodesAbsolute: 50\n")}
	args, err := preemptionplugin.DecodeArgs(raw)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%+v\n", args)

	_, err = preemptionplugin.DecodeArgs(&runtime.Unknown{Raw: []byte("minCandidateNodesPercentage: 120\n")})
	fmt.Println(err != nil)
	// Output:
	// {MinCandidateNodesPercentage:10 MinCandidateNodesAbsolute:50 StrictPDB:true EvictionAPI:false}
	// true
}
