package main

import (
	"strings"
	"testing"

	"github.com/evictkit/eviction/preemption"
)

const schedHeader = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"

// schedConfigCases are parseSchedulerConfig's table, also the fuzz target's
// seeds. wantErr is a part of the error, naming what is at fault.
var schedConfigCases = []struct {
	name          string
	in            string
	schedulerName string
	wantPlugin    string
	wantArgs      preemption.Args
	wantErr       string
}{
	{name: "no profiles: DefaultPreemption, defaults", in: schedHeader,
		wantPlugin: defaultPreemption, wantArgs: preemption.DefaultArgs()},
	{name: "EvictkitPreemption with args", in: schedHeader + `profiles:
- plugins:
    multiPoint:
      enabled: [{name: EvictkitPreemption}]
      disabled: [{name: DefaultPreemption}]
  pluginConfig:
  - name: EvictkitPreemption
    args: {minCandidateNodesAbsolute: 7, strictPDB: true}
`, wantPlugin: evictkitPreemption, wantArgs: preemption.Args{MinCandidateNodesPercentage: 10, MinCandidateNodesAbsolute: 7, StrictPDB: true}},
	{name: "enabled at postFilter", in: schedHeader + `profiles:
- schedulerName: default-scheduler
  plugins: {postFilter: {enabled: [{name: EvictkitPreemption}], disabled: [{name: "*"}]}}
`, wantPlugin: evictkitPreemption, wantArgs: preemption.DefaultArgs()},
	{name: "DefaultPreemption args, typed", in: schedHeader + `profiles:
- pluginConfig:
  - name: DefaultPreemption
    args:
      apiVersion: kubescheduler.config.k8s.io/v1
      kind: DefaultPreemptionArgs
      minCandidateNodesPercentage: 30
`, wantPlugin: defaultPreemption, wantArgs: preemption.Args{MinCandidateNodesPercentage: 30, MinCandidateNodesAbsolute: 100}},
	{name: "the pod's profile", schedulerName: "batch", in: schedHeader + `profiles:
- schedulerName: default-scheduler
- schedulerName: batch
  plugins: {multiPoint: {enabled: [{name: EvictkitPreemption}]}}
  pluginConfig:
  - name: EvictkitPreemption
    args: {evictionAPI: true}
`, wantPlugin: evictkitPreemption, wantArgs: preemption.Args{MinCandidateNodesPercentage: 10, MinCandidateNodesAbsolute: 100, EvictionAPI: true}},
	{name: "JSON", in: `{"apiVersion":"kubescheduler.config.k8s.io/v1","kind":"KubeSchedulerConfiguration","profiles":[{"schedulerName":"default-scheduler"}]}`,
		wantPlugin: defaultPreemption, wantArgs: preemption.DefaultArgs()},
	{name: "not YAML", in: "{", wantErr: "yaml"},
	{name: "wrong kind", in: "apiVersion: v1\nkind: Pod\n", wantErr: "v1 Pod is not a kubescheduler.config.k8s.io/v1 KubeSchedulerConfiguration"},
	{name: "old version", in: "apiVersion: kubescheduler.config.k8s.io/v1beta3\nkind: KubeSchedulerConfiguration\n", wantErr: "v1beta3"},
	{name: "profiles not a list", in: schedHeader + "profiles: 3\n", wantErr: "not a KubeSchedulerConfiguration"},
	{name: "no profile for the pod", schedulerName: "batch", in: schedHeader + "profiles:\n- schedulerName: a\n- {}\n",
		wantErr: `no profile for schedulerName "batch" (profiles: a, default-scheduler)`},
	{name: "no preemption plugin", in: schedHeader + "profiles:\n- plugins: {postFilter: {disabled: [{name: DefaultPreemption}]}}\n",
		wantErr: "runs no preemption plugin"},
	{name: "Evictkit args: unknown field", in: schedHeader + `profiles:
- plugins: {multiPoint: {enabled: [{name: EvictkitPreemption}]}}
  pluginConfig: [{name: EvictkitPreemption, args: {strictPBD: true}}]
`, wantErr: `pluginConfig EvictkitPreemption: preemption: args: invalid options: error unmarshaling JSON: while decoding JSON: json: unknown field "strictPBD"`},
	{name: "Evictkit args: invalid", in: schedHeader + `profiles:
- plugins: {multiPoint: {enabled: [{name: EvictkitPreemption}]}}
  pluginConfig: [{name: EvictkitPreemption, args: {minCandidateNodesPercentage: 101}}]
`, wantErr: "minCandidateNodesPercentage 101 not in [0, 100]"},
	{name: "DefaultPreemption args: not its field", in: schedHeader + `profiles:
- pluginConfig: [{name: DefaultPreemption, args: {strictPDB: true}}]
`, wantErr: `pluginConfig DefaultPreemption: args: unknown field "strictPDB"`},
	{name: "DefaultPreemption args: not an object", in: schedHeader + `profiles:
- pluginConfig: [{name: DefaultPreemption, args: [1]}]
`, wantErr: "pluginConfig DefaultPreemption: args"},
	{name: "args of an unused plugin are not read", in: schedHeader + `profiles:
- pluginConfig: [{name: EvictkitPreemption, args: {nonsense: true}}]
`, wantPlugin: defaultPreemption, wantArgs: preemption.DefaultArgs()},
}

func TestParseSchedulerConfig(t *testing.T) {
	for _, tc := range schedConfigCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseSchedulerConfig([]byte(tc.in), tc.schedulerName)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.plugin != tc.wantPlugin || got.args != tc.wantArgs {
				t.Errorf("got %s %+v, want %s %+v", got.plugin, got.args, tc.wantPlugin, tc.wantArgs)
			}
		})
	}
}

// FuzzParseSchedulerConfig: any input gives a known plugin with valid
// args, or an error; never a panic.
func FuzzParseSchedulerConfig(f *testing.F) {
	for _, tc := range schedConfigCases {
		f.Add([]byte(tc.in), tc.schedulerName)
	}
	f.Fuzz(func(t *testing.T, data []byte, schedulerName string) {
		cfg, err := parseSchedulerConfig(data, schedulerName)
		if err != nil {
			return
		}
		if cfg.plugin != evictkitPreemption && cfg.plugin != defaultPreemption {
			t.Fatalf("plugin %q", cfg.plugin)
		}
		if err := cfg.args.Validate(); err != nil {
			t.Fatalf("invalid args returned: %v", err)
		}
		if cfg.plugin == defaultPreemption && (cfg.args.StrictPDB || cfg.args.EvictionAPI) {
			t.Fatalf("DefaultPreemption with %+v", cfg.args)
		}
	})
}

// With evictionAPI, the victims the scheduler counts as violating a budget
// are the evictions the API server would refuse; without it, or without a
// preemption, nothing is refused.
func TestEvictionAPIText(t *testing.T) {
	r := &preemptReport{outcome: "preempts", config: &preemptConfig{plugin: evictkitPreemption, args: preemption.Args{EvictionAPI: true}}}
	r.result.Chosen = preemption.Candidate{Node: "n1", Victims: preemption.Victims{NumPDBViolations: 2}}
	if got := r.evictionsRefused(); got != 2 {
		t.Errorf("refused %d, want 2", got)
	}
	if text := r.evictionAPIText(); !strings.Contains(text, "2 victims on n1 would violate one") || !strings.Contains(text, "PreemptionRefused") {
		t.Errorf("text %q", text)
	}
	r.config.args.EvictionAPI = false
	if got := r.evictionsRefused(); got != 0 {
		t.Errorf("without evictionAPI refused %d, want 0", got)
	}
}
