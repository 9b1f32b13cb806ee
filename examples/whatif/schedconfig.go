package main

import (
	"cmp"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/evictkit/eviction/preemption"
)

// The preemption plugins a scheduler profile may run.
const (
	evictkitPreemption = "EvictkitPreemption"
	defaultPreemption  = "DefaultPreemption"
	defaultScheduler   = "default-scheduler"
)

// preemptFlagNames are preempt's flags, in the order the output names them.
var preemptFlagNames = []string{"config", "min-candidate-nodes-percentage", "min-candidate-nodes-absolute", "strict-pdb", "eviction-api"}

// preemptFlags are preempt's configuration flags: a KubeSchedulerConfiguration
// and the plugin's args one by one, which override the file's.
type preemptFlags struct {
	config string
	// args holds the flags given as a pluginConfig args object, in JSON:
	// the same parser as the file's reads them.
	args  map[string]any
	given []string // "--flag=value", in the order given
}

// flagFields maps each args flag to the field of preemption.Args it sets.
var flagFields = map[string]string{
	"min-candidate-nodes-percentage": "minCandidateNodesPercentage",
	"min-candidate-nodes-absolute":   "minCandidateNodesAbsolute",
	"strict-pdb":                     "strictPDB",
	"eviction-api":                   "evictionAPI",
}

// register adds the flags to fs. A value of the wrong type is bad input
// naming the flag; the values are checked, once, by preemption.ParseArgs.
func (p *preemptFlags) register(fs *flag.FlagSet) {
	p.args = map[string]any{}
	fs.Func("config", "", func(s string) error {
		p.config = s
		p.given = append(p.given, "--config="+s)
		return nil
	})
	for _, name := range []string{"min-candidate-nodes-percentage", "min-candidate-nodes-absolute"} {
		fs.Func(name, "", func(s string) error {
			v, err := strconv.ParseInt(s, 10, 32)
			if err != nil {
				return fmt.Errorf("want an integer")
			}
			p.args[flagFields[name]] = v
			p.given = append(p.given, fmt.Sprintf("--%s=%d", name, v))
			return nil
		})
	}
	for _, name := range []string{"strict-pdb", "eviction-api"} {
		fs.BoolFunc(name, "", func(s string) error {
			v, err := strconv.ParseBool(s)
			if err != nil {
				return fmt.Errorf("want true or false")
			}
			p.args[flagFields[name]] = v
			p.given = append(p.given, fmt.Sprintf("--%s=%t", name, v))
			return nil
		})
	}
}

// set reports whether any of the flags was given.
func (p *preemptFlags) set() bool { return len(p.given) > 0 }

// preemptConfig is the configuration a preempt prediction runs with: the
// preemption plugin of the profile that schedules the pod, and its args.
type preemptConfig struct {
	plugin  string // evictkitPreemption or defaultPreemption
	args    preemption.Args
	profile string // the profile's schedulerName ("" without --config)
	source  string // where the configuration comes from, in words
}

// resolve reads --config, if given, for the profile that schedules pods of
// schedulerName, then applies the args flags over it. Without --config the
// flags configure EvictkitPreemption over its defaults.
func (p *preemptFlags) resolve(schedulerName string, read func(string) ([]byte, error)) (preemptConfig, error) {
	cfg := preemptConfig{plugin: evictkitPreemption, args: preemption.DefaultArgs(), source: "flags"}
	if p.config != "" {
		data, err := read(p.config)
		if err != nil {
			return preemptConfig{}, err
		}
		if cfg, err = parseSchedulerConfig(data, schedulerName); err != nil {
			return preemptConfig{}, badInput("--config %s: %v", p.config, err)
		}
		cfg.source = fmt.Sprintf("profile %s of %s", cfg.profile, p.config)
	}
	if len(p.args) == 0 {
		return cfg, nil
	}
	if cfg.plugin == defaultPreemption {
		for _, name := range []string{"strict-pdb", "eviction-api"} {
			if _, ok := p.args[flagFields[name]]; ok {
				return preemptConfig{}, badInput("--%s: profile %s runs DefaultPreemption, which has no %s", name, cfg.profile, flagFields[name])
			}
		}
	}
	overlay, err := json.Marshal(p.args)
	if err != nil {
		return preemptConfig{}, err
	}
	args, err := preemption.ParseArgs(overlay, cfg.args)
	if err != nil {
		return preemptConfig{}, badInput("%s: %v", strings.Join(p.given, " "), err)
	}
	cfg.args = args
	if p.config != "" {
		cfg.source += ", overridden by flags"
	}
	return cfg, nil
}

// schedulerConfig is the part of a KubeSchedulerConfiguration
// (kubescheduler.config.k8s.io/v1) that says which preemption plugin a
// profile runs and with which args.
type schedulerConfig struct {
	APIVersion string          `json:"apiVersion"`
	Kind       string          `json:"kind"`
	Profiles   []profileConfig `json:"profiles"`
}

type profileConfig struct {
	SchedulerName string `json:"schedulerName"`
	Plugins       *struct {
		MultiPoint pluginSet `json:"multiPoint"`
		PostFilter pluginSet `json:"postFilter"`
	} `json:"plugins"`
	PluginConfig []struct {
		Name string          `json:"name"`
		Args json.RawMessage `json:"args"`
	} `json:"pluginConfig"`
}

type pluginSet struct {
	Enabled  []pluginRef `json:"enabled"`
	Disabled []pluginRef `json:"disabled"`
}

type pluginRef struct {
	Name string `json:"name"`
}

func pluginNames(refs []pluginRef) []string {
	out := make([]string, len(refs))
	for i, r := range refs {
		out[i] = r.Name
	}
	return out
}

// parseSchedulerConfig finds, in a KubeSchedulerConfiguration in YAML or
// JSON, the profile that schedules pods of schedulerName ("" is
// default-scheduler; a file without profiles has the default profile only),
// the preemption plugin it runs and that plugin's args from its
// pluginConfig, read by preemption.ParseArgs over the defaults. Errors name
// the profile, the plugin and the field at fault.
func parseSchedulerConfig(data []byte, schedulerName string) (preemptConfig, error) {
	schedulerName = cmp.Or(schedulerName, defaultScheduler)
	raw, err := yaml.YAMLToJSON(data)
	if err != nil {
		return preemptConfig{}, err
	}
	var c schedulerConfig
	if err := json.Unmarshal(raw, &c); err != nil {
		return preemptConfig{}, fmt.Errorf("not a KubeSchedulerConfiguration: %v", err)
	}
	if c.Kind != "KubeSchedulerConfiguration" || c.APIVersion != "kubescheduler.config.k8s.io/v1" {
		return preemptConfig{}, fmt.Errorf("kind %s %s is not a kubescheduler.config.k8s.io/v1 KubeSchedulerConfiguration",
			cmp.Or(c.APIVersion, `""`), cmp.Or(c.Kind, `""`))
	}
	if len(c.Profiles) == 0 {
		c.Profiles = []profileConfig{{SchedulerName: defaultScheduler}}
	}
	var profile *profileConfig
	var seen []string
	for i := range c.Profiles {
		name := cmp.Or(c.Profiles[i].SchedulerName, defaultScheduler)
		seen = append(seen, name)
		if name == schedulerName {
			profile = &c.Profiles[i]
			break
		}
	}
	if profile == nil {
		return preemptConfig{}, fmt.Errorf("no profile for schedulerName %q (profiles: %s)", schedulerName, strings.Join(seen, ", "))
	}
	cfg := preemptConfig{profile: schedulerName, args: preemption.DefaultArgs()}
	var enabled, disabled []string
	if pl := profile.Plugins; pl != nil {
		enabled = append(pluginNames(pl.MultiPoint.Enabled), pluginNames(pl.PostFilter.Enabled)...)
		disabled = append(pluginNames(pl.MultiPoint.Disabled), pluginNames(pl.PostFilter.Disabled)...)
	}
	switch {
	case slices.Contains(enabled, evictkitPreemption) && !slices.Contains(disabled, evictkitPreemption):
		cfg.plugin = evictkitPreemption
	case !slices.Contains(disabled, defaultPreemption) && !slices.Contains(disabled, "*"):
		cfg.plugin = defaultPreemption
	default:
		return preemptConfig{}, fmt.Errorf("profile %s runs no preemption plugin (neither %s nor %s): nothing would be preempted",
			schedulerName, evictkitPreemption, defaultPreemption)
	}
	for _, pc := range profile.PluginConfig {
		if pc.Name != cfg.plugin {
			continue
		}
		args := []byte(pc.Args)
		if cfg.plugin == defaultPreemption {
			if args, err = defaultPreemptionArgs(args); err != nil {
				return preemptConfig{}, fmt.Errorf("profile %s, pluginConfig %s: %v", schedulerName, pc.Name, err)
			}
		}
		if cfg.args, err = preemption.ParseArgs(args, preemption.DefaultArgs()); err != nil {
			return preemptConfig{}, fmt.Errorf("profile %s, pluginConfig %s: %v", schedulerName, pc.Name, err)
		}
	}
	return cfg, nil
}

// defaultPreemptionArgs checks DefaultPreemptionArgs, which may name their
// own apiVersion and kind and have only the two sampling fields, and
// returns them without apiVersion and kind.
func defaultPreemptionArgs(data []byte) ([]byte, error) {
	if len(data) == 0 || string(data) == "null" {
		return data, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("args: %v", err)
	}
	delete(m, "apiVersion")
	delete(m, "kind")
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if k != "minCandidateNodesPercentage" && k != "minCandidateNodesAbsolute" {
			return nil, fmt.Errorf("args: unknown field %q", k)
		}
	}
	return json.Marshal(m)
}
