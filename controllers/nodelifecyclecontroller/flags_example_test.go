package nodelifecyclecontroller_test

import (
	"flag"
	"fmt"

	"github.com/evictkit/eviction/controllers/nodelifecyclecontroller"
)

// A program takes kube-controller-manager's node lifecycle flags: an
// unset flag keeps kcm's default, a bad one is an error that names it, and
// --enable-taint-manager=false turns on v1.26's legacy mode.
func ExampleFlags() {
	var f nodelifecyclecontroller.Flags
	fs := flag.NewFlagSet("node-lifecycle-controller", flag.ContinueOnError)
	f.Register(fs)
	_ = fs.Parse([]string{"--node-monitor-grace-period=40s", "--enable-taint-manager=false"})
	s, err := f.Settings(fs)
	fmt.Println(s.Config.MonitorGracePeriod, s.Config.MonitorPeriod, s.Legacy.PodEvictionTimeout, err)

	var bad nodelifecyclecontroller.Flags
	fs = flag.NewFlagSet("node-lifecycle-controller", flag.ContinueOnError)
	bad.Register(fs)
	_ = fs.Parse([]string{"--pod-eviction-timeout=0s"})
	_, err = bad.Settings(fs)
	fmt.Println(err)
	// Output:
	// 40s 5s 5m0s <nil>
	// --pod-eviction-timeout 0s is not positive
}
