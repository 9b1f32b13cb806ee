package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/evictkit/eviction/examples/whatif/internal/gensnap"
)

// sharingConfigs are generated clusters of every shape, small enough for
// the race detector.
func sharingConfigs() map[string]gensnap.Config {
	out := map[string]gensnap.Config{}
	for _, shape := range gensnap.Shapes {
		c := gensnap.Config{Nodes: 31, PodsPerNode: 12, Shape: shape, Compact: shape != gensnap.Large}
		out[string(shape)] = c
		if shape == gensnap.Large {
			c.Format = gensnap.YAML
			out["large-yaml"] = c
		}
	}
	return out
}

// The decoder, which decodes each distinct text of the parts that repeat
// once and shares the result, gives the objects encoding/json gives (the
// reference decode of the benchmarks), but for the fields it skips because
// no scenario reads them.
func TestDecodeIsTheReferenceDecode(t *testing.T) {
	for name, c := range sharingConfigs() {
		t.Run(name, func(t *testing.T) {
			if c.Format == gensnap.YAML {
				c.Format = gensnap.JSON // the reference reads JSON
			}
			file := filepath.Join(t.TempDir(), "snapshot.json")
			var b bytes.Buffer
			if err := gensnap.Write(&b, c); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			s, err := readSnapshot(&b, file)
			if err != nil {
				t.Fatal(err)
			}
			ref, err := referenceJSON(file)
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range ref.nodes {
				n.Status.Images = nil
			}
			for _, p := range ref.pods {
				for _, cs := range [][]corev1.ContainerStatus{p.Status.ContainerStatuses, p.Status.InitContainerStatuses} {
					for i := range cs {
						cs[i].State, cs[i].Image, cs[i].ImageID, cs[i].ContainerID = corev1.ContainerState{}, "", "", ""
					}
				}
			}
			if len(s.Pods) == 0 || len(s.PDBs) == 0 {
				t.Fatalf("%d pods, %d PDBs: the case tests nothing", len(s.Pods), len(s.PDBs))
			}
			if !reflect.DeepEqual(s.Nodes, ref.nodes) {
				t.Error("nodes differ from encoding/json's")
			}
			if len(s.Pods) != len(ref.pods) {
				t.Fatalf("%d pods, encoding/json %d", len(s.Pods), len(ref.pods))
			}
			for i := range s.Pods {
				if !reflect.DeepEqual(s.Pods[i], ref.pods[i]) {
					t.Fatalf("pod %s differs from encoding/json's:\n%+v\n%+v", podKey(s.Pods[i]), s.Pods[i], ref.pods[i])
				}
			}
			if !reflect.DeepEqual(s.PDBs, ref.pdbs) {
				t.Error("PDBs differ from encoding/json's")
			}
		})
	}
}

// The replicas of a Deployment share one copy of their containers,
// tolerations, owner reference and labels.
func TestDecodeSharesWhatRepeats(t *testing.T) {
	s := generated(t, gensnap.Config{Nodes: 31, PodsPerNode: 12, Shape: gensnap.Namespaces})
	byOwner := map[string][]*corev1.Pod{}
	for _, p := range s.Pods {
		if len(p.OwnerReferences) == 1 && p.OwnerReferences[0].Kind == "ReplicaSet" {
			byOwner[p.OwnerReferences[0].Name] = append(byOwner[p.OwnerReferences[0].Name], p)
		}
	}
	checked := 0
	for rs, pods := range byOwner {
		a := pods[0]
		for _, b := range pods[1:] {
			checked++
			if &a.Spec.Containers[0] != &b.Spec.Containers[0] || &a.Spec.Tolerations[0] != &b.Spec.Tolerations[0] ||
				&a.OwnerReferences[0] != &b.OwnerReferences[0] || reflect.ValueOf(a.Labels).UnsafePointer() != reflect.ValueOf(b.Labels).UnsafePointer() {
				t.Errorf("replicas %s and %s of %s do not share their parts", a.Name, b.Name, rs)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no Deployment with two replicas: the test proves nothing")
	}
}

// No scenario writes to the snapshot, whose objects share their parts: after
// every scenario the snapshot is the one decoded afresh.
func TestScenariosLeaveTheSharedSnapshot(t *testing.T) {
	dir := t.TempDir()
	preemptor := filepath.Join(dir, "preemptor.yaml")
	if err := os.WriteFile(preemptor, []byte(preemptorYAML), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, c := range sharingConfigs() {
		t.Run(name, func(t *testing.T) {
			s, fresh := generated(t, c), generated(t, c)
			for _, sc := range scenarios() {
				args := sc.args(c, preemptor)
				var err error
				switch sc.name {
				case "node-down", "node-down-zone":
					_, err = nodeDown(s, "generated", settings{}, args[1:], false)
				case "taint":
					_, err = taintNode(s, "generated", settings{}, args[1], args[2])
				case "pressure":
					_, err = pressure(s, "generated", args[1], pressureInput{signals: args[3:]}, nil, false)
				case "preempt":
					_, err = preempt(s, "generated", args[1], nil, false, &preemptFlags{})
				}
				if err != nil {
					t.Fatalf("%s: %v", sc.name, err)
				}
				if !reflect.DeepEqual(s, fresh) {
					t.Fatalf("%s changed the snapshot", sc.name)
				}
			}
		})
	}
}

// timeIn decodes every text as metav1.Time does: the same time, or an
// error where it fails.
func TestTimeInDecodesAsMetav1Time(t *testing.T) {
	for _, text := range []string{
		`"2026-11-29T12:00:00Z"`, `"2026-11-29T12:00:00+02:00"`, `"2026-11-29T12:00:00.123456789Z"`,
		`"2026-11-29T12:00:00\u005a"`, `null`, `"garbage"`, `""`, `"2026-11-29"`, `12`,
	} {
		var want metav1.Time
		wantErr := want.UnmarshalJSON([]byte(text))
		var got timeIn
		gotErr := got.UnmarshalJSON([]byte(text))
		if (gotErr != nil) != (wantErr != nil) || !reflect.DeepEqual(got.Time, want) {
			t.Errorf("%s: got %v (error %v), metav1.Time %v (error %v)", text, got.Time, gotErr, want, wantErr)
		}
	}
}

// jsonField is where encoding/json puts a JSON name in a struct: the path of
// field indexes, and its depth.
type jsonField struct {
	path  []int
	depth int
}

// jsonFields resolves the JSON names of struct type t as encoding/json
// does: the shallowest field of a name wins, a tagged one among several at
// that depth, and a name with several at its shallowest depth is dropped.
func jsonFields(t reflect.Type) map[string]jsonField {
	type candidate struct {
		jsonField
		tagged bool
	}
	all := map[string][]candidate{}
	var walk func(t reflect.Type, path []int)
	walk = func(t reflect.Type, path []int) {
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			p := append(slices.Clone(path), i)
			tag := f.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, _, _ := strings.Cut(tag, ",")
			ft := f.Type
			if f.Anonymous && name == "" && ft.Kind() == reflect.Struct {
				walk(ft, p)
				continue
			}
			if !f.IsExported() {
				continue
			}
			if name == "" {
				name = f.Name
			}
			all[name] = append(all[name], candidate{jsonField{p, len(path)}, tag != ""})
		}
	}
	walk(t, nil)
	out := map[string]jsonField{}
	for name, cs := range all {
		min := slices.MinFunc(cs, func(a, b candidate) int { return a.depth - b.depth }).depth
		var at []candidate
		for _, c := range cs {
			if c.depth == min {
				at = append(at, c)
			}
		}
		if len(at) > 1 {
			var tagged []candidate
			for _, c := range at {
				if c.tagged {
					tagged = append(tagged, c)
				}
			}
			at = tagged
		}
		if len(at) == 1 {
			out[name] = at[0].jsonField
		}
	}
	return out
}

// The spec and status unions hold every field of each kind's spec and
// status: each JSON name of a Node's, Pod's and PDB's spec (and status)
// lands in that kind's part of the union, or in the union's own fields for
// the status names the kinds share, which add hands to the kind. Checked
// against the k8s.io/api in use, so that a field a new version adds to one
// kind, under a name another kind has, is caught.
func TestUnionsHoldEveryField(t *testing.T) {
	for _, u := range []struct {
		union   reflect.Type
		members map[string]reflect.Type // the union's field holding each kind's part
		shared  []string                // names the union holds itself
	}{
		{reflect.TypeFor[specIn](), map[string]reflect.Type{
			"podSpecIn": reflect.TypeFor[podSpecIn](), "NodeSpec": reflect.TypeFor[corev1.NodeSpec](),
			"PodDisruptionBudgetSpec": reflect.TypeFor[policyv1.PodDisruptionBudgetSpec](),
		}, nil},
		{reflect.TypeFor[statusIn](), map[string]reflect.Type{
			"podStatusIn": reflect.TypeFor[podStatusIn](), "deeperNodeStatus": reflect.TypeFor[deeperNodeStatus](),
			"PodDisruptionBudgetStatus": reflect.TypeFor[policyv1.PodDisruptionBudgetStatus](),
		}, []string{"phase", "observedGeneration", "conditions"}},
	} {
		fields := jsonFields(u.union)
		for member, mt := range u.members {
			sf, ok := u.union.FieldByName(member)
			if !ok || !sf.Anonymous {
				t.Fatalf("%v has no embedded %s", u.union, member)
			}
			for name, want := range jsonFields(mt) {
				got, ok := fields[name]
				switch {
				case slices.Contains(u.shared, name):
					if !ok || got.depth != 0 {
						t.Errorf("%v: %q is not the union's own field", u.union, name)
					}
				case !ok:
					t.Errorf("%v: %q of %s is dropped (ambiguous)", u.union, name, member)
				case !slices.Equal(got.path, append(slices.Clone(sf.Index), want.path...)):
					t.Errorf("%v: %q of %s lands in another kind's field", u.union, name, member)
				}
			}
		}
	}
}

// A condition of each kind, every field set, comes out of conditionIn as it
// went in.
func TestConditionInHoldsEveryKindsCondition(t *testing.T) {
	at := metav1.NewTime(time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC).Local())
	fill := func(v reflect.Value) {
		for i := 0; i < v.NumField(); i++ {
			f := v.Field(i)
			switch {
			case f.Type() == reflect.TypeFor[metav1.Time]():
				f.Set(reflect.ValueOf(at))
			case f.Kind() == reflect.String:
				f.SetString(v.Type().Field(i).Name)
			case f.Kind() == reflect.Int64:
				f.SetInt(int64(7 + i))
			default:
				t.Fatalf("%v.%s: a field of type %v the test cannot fill", v.Type(), v.Type().Field(i).Name, f.Type())
			}
		}
	}
	check := func(want any, convert func(*conditionIn) any) {
		v := reflect.New(reflect.TypeOf(want)).Elem()
		fill(v)
		raw, err := json.Marshal(v.Interface())
		if err != nil {
			t.Fatal(err)
		}
		var c conditionIn
		if err := json.Unmarshal(raw, &c); err != nil {
			t.Fatal(err)
		}
		if got := convert(&c); !reflect.DeepEqual(got, v.Interface()) {
			t.Errorf("%T: got %+v, want %+v", want, got, v.Interface())
		}
	}
	check(corev1.NodeCondition{}, func(c *conditionIn) any { return nodeCondition(c) })
	check(corev1.PodCondition{}, func(c *conditionIn) any { return podCondition(c) })
	check(metav1.Condition{}, func(c *conditionIn) any { return condition(c) })
}
