package conformance_test

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/go-logr/logr"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/featuregate"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/klog/v2"
)

// long asks for the long run: at least longChecks random cases per function.
var long = flag.Bool("conformance.long", false,
	"run at least 10,000 random cases per function (also: EVICTKIT_CONFORMANCE_LONG=1)")

const longChecks = 10000

func TestMain(m *testing.M) {
	flag.Parse()
	if v, _ := strconv.ParseBool(os.Getenv("EVICTKIT_CONFORMANCE_LONG")); v {
		*long = true
	}
	if *long && !flagSet("rapid.checks") {
		if err := flag.Set("rapid.checks", strconv.Itoa(longChecks)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
	}
	// Upstream logs through klog (it reports unparsable Lt/Gt values as
	// errors, for one); keep test output to the disagreements.
	klog.SetLogger(logr.Discard())
	os.Exit(m.Run())
}

func flagSet(name string) bool {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// show formats test inputs for failure messages as JSON, so that pointer
// fields (toleration seconds, start times) print as values.
func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%+v", v)
	}
	return string(b)
}

// withGate runs f once for each of values of upstream's process-wide
// feature gate, in a subtest named name=value, with the gate set for the
// upstream functions that read it.
func withGate(t *testing.T, gate featuregate.Feature, name string, values []bool, f func(t *testing.T, on bool)) {
	for _, on := range values {
		t.Run(fmt.Sprintf("%s=%v", name, on), func(t *testing.T) {
			featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, gate, on)
			f(t, on)
		})
	}
}
