package conformance_test

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/go-logr/logr"
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
