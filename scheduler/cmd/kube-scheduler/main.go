// Command kube-scheduler is kube-scheduler v1.37.2 with the
// EvictkitPreemption PostFilter plugin registered beside the in-tree
// plugins. Enable it in a KubeSchedulerConfiguration in place of
// DefaultPreemption (see deploy/scheduler/ and package preemptionplugin);
// without such a configuration the program behaves as kube-scheduler.
package main

import (
	"os"

	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register"          // the JSON log format
	_ "k8s.io/component-base/metrics/prometheus/clientgo" // client-go metrics
	_ "k8s.io/component-base/metrics/prometheus/version"  // the version metric
	"k8s.io/kubernetes/cmd/kube-scheduler/app"

	"github.com/evictkit/eviction/scheduler/cmd/preemptionmetrics"
	"github.com/evictkit/eviction/scheduler/preemptionplugin"
)

func main() {
	// The plugin records its preemptions in kube-scheduler's metrics, as
	// DefaultPreemption does.
	command := app.NewSchedulerCommand(app.WithPlugin(preemptionplugin.Name, preemptionmetrics.NewPlugin))
	os.Exit(cli.Run(command))
}
