package preemption_test

import (
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/evictkit/eviction/preemption"
)

// lazyNodes is a NodeSource that records which snapshots were asked for and
// can fail for chosen nodes.
type lazyNodes struct {
	nodes []preemption.NodeSnapshot
	fail  map[string]error // node name → error to return
	wrong map[string]bool  // node name → return the next node's snapshot

	mu    sync.Mutex
	asked map[string]int
}

var _ preemption.NodeSource = (*lazyNodes)(nil)

func (l *lazyNodes) Len() int          { return len(l.nodes) }
func (l *lazyNodes) Name(i int) string { return l.nodes[i].Name() }
func (l *lazyNodes) Snapshot(i int) (preemption.NodeSnapshot, error) {
	name := l.nodes[i].Name()
	l.mu.Lock()
	if l.asked == nil {
		l.asked = map[string]int{}
	}
	l.asked[name]++
	l.mu.Unlock()
	if err := l.fail[name]; err != nil {
		return preemption.NodeSnapshot{}, err
	}
	if l.wrong[name] {
		return l.nodes[(i+1)%len(l.nodes)], nil
	}
	return l.nodes[i], nil
}

// statusNodes is a lazyNodes that gives the prior statuses itself.
type statusNodes struct {
	*lazyNodes
	codes []preemption.Code
}

var _ preemption.StatusSource = statusNodes{}

func (s statusNodes) PriorStatus(i int) preemption.Code { return s.codes[i] }

// TestPropertySourceEqualsSlice: a lazy source gives the result of the same
// snapshots in a slice, for any worker count, and with prior statuses given
// only the nodes the dry run visited (and, with w workers, the w-1 after
// them that were in flight when it stopped), the nominated node and the
// chosen node are asked for.
func TestPropertySourceEqualsSlice(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		nodes, pdbs, pre, opts := genCluster(t)
		want, wantErr := preemption.Evaluate(pre, nodes, mustPDBs(pdbs), now, opts)
		opts.Workers = rapid.IntRange(1, 4).Draw(t, "workers")
		src := &lazyNodes{nodes: nodes}
		var source preemption.NodeSource = src
		if opts.PriorStatus != nil && rapid.Bool().Draw(t, "status source") {
			// The statuses by index replace the map, which is then
			// ignored.
			ss := statusNodes{lazyNodes: src}
			for _, n := range nodes {
				code, ok := opts.PriorStatus[n.Name()]
				if !ok {
					code = preemption.UnschedulableAndUnresolvable
				}
				ss.codes = append(ss.codes, code)
			}
			source, opts.PriorStatus = ss, map[string]preemption.Code{"ignored": preemption.Unschedulable}
		}
		got, gotErr := preemption.EvaluateSource(pre, source, mustPDBs(pdbs), now, opts)
		if !reflect.DeepEqual(want, got) {
			t.Fatalf("lazy source differs:\nslice %+v\nlazy  %+v", want, got)
		}
		if fmt.Sprint(wantErr) != fmt.Sprint(gotErr) {
			t.Fatalf("errors differ: %v vs %v", wantErr, gotErr)
		}
		if opts.PriorStatus == nil {
			if len(src.asked) != len(nodes) {
				t.Fatalf("without prior statuses %d of %d nodes asked for", len(src.asked), len(nodes))
			}
			return
		}
		allowed := map[string]bool{pre.Status.NominatedNodeName: true, got.Chosen.Node: true}
		for i := range min(got.Evaluated+opts.Workers-1, len(got.Potential)) {
			allowed[got.Potential[(int(got.Offset)+i)%len(got.Potential)]] = true
		}
		for name := range src.asked {
			if !allowed[name] {
				t.Fatalf("node %s was asked for; visited %d from offset %d of %q", name, got.Evaluated, got.Offset, got.Potential)
			}
		}
	})
}

// TestEvaluateSourceErrors: a node whose snapshot cannot be had fails its
// evaluation like a node error upstream; the decision fails only when no
// node is a candidate.
func TestEvaluateSourceErrors(t *testing.T) {
	broken := errors.New("informer not synced")
	pre := mkPod("p", prio(high), sizeL)
	prior := func(names ...string) map[string]preemption.Code {
		m := map[string]preemption.Code{}
		for _, n := range names {
			m[n] = preemption.Unschedulable
		}
		return m
	}
	nodes := fiveNodes(t, [5]int32{low, low, low, low, low}, [5]bool{})

	t.Run("one node fails, another is chosen", func(t *testing.T) {
		opts := seq()
		opts.PriorStatus = prior("n1", "n2")
		opts.Sampling = &preemption.Sampling{MinCandidateNodesPercentage: 100, MinCandidateNodesAbsolute: 2}
		r, err := preemption.EvaluateSource(pre, &lazyNodes{nodes: nodes, fail: map[string]error{"n1": broken}}, preemption.PDBs{}, now, opts)
		require.NoError(t, err)
		assert.Equal(t, "n2", r.Chosen.Node)
		assert.Equal(t, preemption.Error, r.NodeStatuses["n1"].Code)
		assert.Contains(t, r.NodeStatuses["n1"].Message(), "informer not synced")
	})
	t.Run("every visited node fails", func(t *testing.T) {
		opts := seq()
		opts.PriorStatus = prior("n1")
		r, err := preemption.EvaluateSource(pre, &lazyNodes{nodes: nodes, fail: map[string]error{"n1": broken}}, preemption.PDBs{}, now, opts)
		require.ErrorIs(t, err, preemption.ErrNodeEvaluation)
		require.ErrorIs(t, err, broken)
		assert.Equal(t, preemption.Error, r.Code)
		assert.True(t, r.KeepNomination)
		assert.Contains(t, r.Message, `node "n1"`)
	})
	t.Run("prior statuses need every node", func(t *testing.T) {
		_, err := preemption.EvaluateSource(pre, &lazyNodes{nodes: nodes, fail: map[string]error{"n4": broken}}, preemption.PDBs{}, now, seq())
		require.ErrorIs(t, err, preemption.ErrNodeEvaluation)
		require.ErrorIs(t, err, broken)
	})
	t.Run("nominated node fails", func(t *testing.T) {
		opts := seq()
		opts.PriorStatus = prior("n1", "n2", "n3")
		nominated := mkPod("p", prio(high), sizeL, nominatedTo("n3"))
		r, err := preemption.EvaluateSource(nominated, &lazyNodes{nodes: nodes, fail: map[string]error{"n3": broken}}, preemption.PDBs{}, now, opts)
		require.ErrorIs(t, err, preemption.ErrNodeEvaluation)
		assert.Equal(t, preemption.Error, r.Code)
	})
	t.Run("snapshot of another node", func(t *testing.T) {
		opts := seq()
		opts.PriorStatus = prior("n1")
		_, err := preemption.EvaluateSource(pre, &lazyNodes{nodes: nodes, wrong: map[string]bool{"n1": true}}, preemption.PDBs{}, now, opts)
		require.ErrorIs(t, err, preemption.ErrNodeEvaluation)
		require.ErrorIs(t, err, preemption.ErrInvalidInput)
	})
	t.Run("nil source", func(t *testing.T) {
		r, err := preemption.EvaluateSource(pre, nil, preemption.PDBs{}, now, seq())
		require.ErrorIs(t, err, preemption.ErrNoNodes)
		assert.Equal(t, preemption.Error, r.Code)
	})
}

// TestEvaluateSourceVisitsOnlySampledNodes: with prior statuses, 1,000
// potential nodes and the default sampling, only the 100 nodes of the dry
// run are prepared, and with 3 workers at most the 2 next ones besides.
func TestEvaluateSourceVisitsOnlySampledNodes(t *testing.T) {
	var nodes []preemption.NodeSnapshot
	prior := map[string]preemption.Code{}
	for i := range 1000 {
		name := fmt.Sprintf("n%04d", i)
		nodes = append(nodes, snap(t, stdNode(name), mkPod("v"+name, prio(low), sizeL)))
		prior[name] = preemption.Unschedulable
	}
	opts := preemption.Options{Offset: preemption.FixedOffset(950), PriorStatus: prior, Workers: 3}
	src := &lazyNodes{nodes: nodes}
	r, err := preemption.EvaluateSource(mkPod("p", prio(high), sizeL), src, preemption.PDBs{}, now, opts)
	require.NoError(t, err)
	assert.Equal(t, 100, r.Evaluated)
	assert.LessOrEqual(t, len(src.asked), 102)
	for i := range 102 {
		name := fmt.Sprintf("n%04d", (950+i)%1000)
		if i < 100 {
			assert.Contains(t, src.asked, name)
		}
		delete(src.asked, name)
	}
	assert.Empty(t, src.asked, "nodes outside the dry run")
}
