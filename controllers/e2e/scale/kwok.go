package scale

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/evictkit/eviction/controllers/e2e/framework"
)

// Label keys of the nodes a run creates.
const (
	// heartbeatLabel is the label kwok manages nodes by: "on" keeps a node
	// alive, anything else silences it.
	heartbeatLabel = "evictkit.io/kwok"
	zoneLabel      = "topology.kubernetes.io/zone"
	regionLabel    = "topology.kubernetes.io/region"
)

// leaseDuration is the node Lease duration kwok writes; it renews each Lease
// every quarter of it, as the kubelet does.
const leaseDuration = 40 * time.Second

// renewInterval is how often kwok renews a node's Lease.
const renewInterval = leaseDuration / 4

// kwokStages is kwok's configuration: what it does to the nodes and pods it
// manages. Nodes become Ready with room for any pod, and become Ready again
// when they come back after a silence (the node lifecycle controller set
// their Ready condition Unknown); pods run and become Ready at once; a pod
// being deleted is removed at once, as a kubelet that stopped its containers
// would.
const kwokStages = `apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: evictkit-node-ready
spec:
  resourceRef: {apiGroup: v1, kind: Node}
  selector:
    matchExpressions:
    - key: '.status.conditions.[] | select( .type == "Ready" ) | .status'
      operator: NotIn
      values: ["True"]
  next:
    statusTemplate: |
      {{ $now := Now }}
      conditions:
      - {type: Ready, status: "True", reason: KubeletReady, message: "kwok keeps this node alive", lastHeartbeatTime: {{ $now | Quote }}, lastTransitionTime: {{ $now | Quote }}}
      - {type: MemoryPressure, status: "False", reason: KubeletHasSufficientMemory, lastHeartbeatTime: {{ $now | Quote }}, lastTransitionTime: {{ $now | Quote }}}
      - {type: DiskPressure, status: "False", reason: KubeletHasNoDiskPressure, lastHeartbeatTime: {{ $now | Quote }}, lastTransitionTime: {{ $now | Quote }}}
      - {type: PIDPressure, status: "False", reason: KubeletHasSufficientPID, lastHeartbeatTime: {{ $now | Quote }}, lastTransitionTime: {{ $now | Quote }}}
      capacity: {cpu: "64", memory: 256Gi, pods: "110"}
      allocatable: {cpu: "64", memory: 256Gi, pods: "110"}
      phase: Running
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: evictkit-pod-ready
spec:
  resourceRef: {apiGroup: v1, kind: Pod}
  selector:
    matchExpressions:
    - key: .metadata.deletionTimestamp
      operator: DoesNotExist
    - key: .status.phase
      operator: In
      values: [Pending]
  next:
    statusTemplate: |
      {{ $now := Now }}
      phase: Running
      startTime: {{ $now | Quote }}
      conditions:
      - {type: PodScheduled, status: "True", lastTransitionTime: {{ $now | Quote }}}
      - {type: Initialized, status: "True", lastTransitionTime: {{ $now | Quote }}}
      - {type: ContainersReady, status: "True", lastTransitionTime: {{ $now | Quote }}}
      - {type: Ready, status: "True", lastTransitionTime: {{ $now | Quote }}}
      containerStatuses:
      {{ range .spec.containers }}
      - {name: {{ .name | Quote }}, image: {{ .image | Quote }}, ready: true, started: true, restartCount: 0, state: {running: {startedAt: {{ $now | Quote }}}}}
      {{ end }}
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: evictkit-pod-delete
spec:
  resourceRef: {apiGroup: v1, kind: Pod}
  selector:
    matchExpressions:
    - key: .metadata.deletionTimestamp
      operator: Exists
  next:
    delete: true
`

// startKwok builds kwok (once; cached like the control plane) and runs it
// against cp as kubeconfig's user, managing the nodes labelled
// heartbeatLabel=on.
func startKwok(cp *framework.ControlPlane, kubeconfig string) (*framework.Process, error) {
	bin, err := framework.BuildProgram("tools", "sigs.k8s.io/kwok/cmd/kwok", "kwok")
	if err != nil {
		return nil, err
	}
	config := filepath.Join(cp.Dir, "kwok-stages.yaml")
	if err := os.WriteFile(config, []byte(kwokStages), 0o644); err != nil {
		return nil, fmt.Errorf("scale: kwok stages: %w", err)
	}
	return cp.Run("kwok", bin,
		"--kubeconfig="+kubeconfig,
		"--config="+config,
		"--manage-all-nodes=false",
		"--manage-nodes-with-label-selector="+heartbeatLabel+"=on",
		"--node-lease-duration-seconds="+strconv.Itoa(int(leaseDuration/time.Second)),
		"--server-address=",
	)
}
