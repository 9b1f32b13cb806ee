package main

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/evictkit/eviction/controllers/pressureevictor"
)

func TestParseFlags(t *testing.T) {
	t.Setenv("NODE_IP", "")
	o, err := parse([]string{"--node=n1", "--node-ip=10.0.0.7", "--interval=5s", "--dry-run",
		"--eviction-soft=memory.available<1Gi", "--eviction-soft=nodefs.available<20%",
		"--eviction-soft-grace-period=memory.available=1m,nodefs.available=2m"}, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, "n1", o.node)
	assert.Equal(t, 5*time.Second, o.interval)
	assert.True(t, o.dryRun)
	assert.Len(t, o.ts, 2, "repeated flags accumulate, as the kubelet's do")
	assert.Equal(t, int64(300), o.maxGrace, "the evictor's default cap")
	assert.Equal(t, int64(16<<20), o.summaryMaxBytes)
	assert.Equal(t, 30*time.Second, o.cycleTimeout)
	assert.Equal(t, "kubelet", o.source, "the kubelet itself, not the node proxy, by default")
	assert.Equal(t, pressureevictor.KubeletConfig{
		Address: "10.0.0.7", TokenFile: pressureevictor.DefaultTokenFile, CAFile: pressureevictor.DefaultCAFile,
	}, o.kubelet, "the port from the Node, the service account's token and CA")

	o, err = parse([]string{"--node=n1", "--node-ip=10.0.0.7", "--eviction-max-pod-grace-period=-1", "--summary-max-bytes=1048576", "--cycle-timeout=5s"}, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, int64(-1), o.maxGrace, "negative defers to the pod, as the kubelet's does")
	assert.Equal(t, int64(1<<20), o.summaryMaxBytes)
	assert.Equal(t, 5*time.Second, o.cycleTimeout)

	t.Setenv("NODE_IP", "fd00::7")
	o, err = parse([]string{"--node=n1", "--kubelet-port=10255", "--kubelet-insecure-skip-tls-verify", "--kubelet-token-file=/t"}, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, pressureevictor.KubeletConfig{Address: "fd00::7", Port: 10255, TokenFile: "/t", InsecureSkipTLSVerify: true}, o.kubelet,
		"NODE_IP is the default; no CA with the verification off")

	o, err = parse([]string{"--node=n1", "--summary-source=proxy"}, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, "proxy", o.source)
}

func TestBadFlagsGiveOneLine(t *testing.T) {
	t.Setenv("NODE_IP", "") // as outside a pod
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--node=n", "--bogus"}, "flag provided but not defined: -bogus"},
		{[]string{"--node="}, "--node is empty and NODE_NAME is not set"},
		{[]string{"--node=n", "--interval=0s"}, "--interval 0s is not positive"},
		{[]string{"--node=n", "--interval=often"}, `invalid value "often" for flag -interval`},
		{[]string{"--node=n", "--eviction-soft=memory.available<1Gi"}, "grace period must be specified"},
		{[]string{"--node=n", "--eviction-hard=memory.available<lots"}, `eviction-hard "memory.available<lots"`},
		{[]string{"--node=n", "stray"}, `unexpected argument "stray"`},
		{[]string{"--node=n", "--cycle-timeout=0s"}, "--cycle-timeout 0s is not positive"},
		{[]string{"--node=n", "--summary-max-bytes=0"}, "--summary-max-bytes 0 is not positive"},
		{[]string{"--node=n", "--eviction-max-pod-grace-period=long"}, `invalid value "long" for flag -eviction-max-pod-grace-period`},
		{[]string{"--node=n", "--kube-api-qps=-5"}, "--kube-api-qps -5 is not a number of queries per second"},
		{[]string{"--node=n", "--kube-api-startup-timeout=0s"}, "--kube-api-startup-timeout 0s is not positive"},
		{[]string{"--node=n"}, "--node-ip is empty and NODE_IP is not set"},
		{[]string{"--node=n", "--node-ip=node-1.example"}, `node address "node-1.example" is not an IP address (--node-ip)`},
		{[]string{"--node=n", "--node-ip=10.0.0.1", "--kubelet-port=70000"}, "port 70000 is not 1 to 65535, or 0 (--kubelet-port)"},
		{[]string{"--node=n", "--node-ip=10.0.0.1", "--kubelet-token-file="}, "no token file (--kubelet-token-file)"},
		{[]string{"--node=n", "--node-ip=10.0.0.1", "--kubelet-certificate-authority="}, "no CA file to verify the kubelet with (--kubelet-certificate-authority)"},
		{[]string{"--node=n", "--node-ip=10.0.0.1", "--kubelet-certificate-authority=/ca", "--kubelet-insecure-skip-tls-verify"},
			"--kubelet-certificate-authority and --kubelet-insecure-skip-tls-verify are both set"},
		{[]string{"--node=n", "--summary-source=api"}, `--summary-source "api" is not kubelet or proxy`},
		{[]string{"--node=n", "--summary-source=proxy", "--node-ip=10.0.0.1"}, "--node-ip is set, but --summary-source=proxy does not reach the kubelet directly"},
		{[]string{"--node=n", "--summary-source=proxy", "--kubelet-insecure-skip-tls-verify"}, "--kubelet-insecure-skip-tls-verify is set, but --summary-source=proxy"},
	} {
		_, err := parse(tc.args, io.Discard)
		require.Error(t, err, tc.args)
		assert.Contains(t, err.Error(), tc.want)
		assert.NotContains(t, err.Error(), "\n")
	}
}

func TestHelpPrintsTheFlags(t *testing.T) {
	var b strings.Builder
	_, err := parse([]string{"-h"}, &b)
	require.Error(t, err)
	assert.Contains(t, b.String(), "-eviction-soft-grace-period")
}

// Every error line names the program, then gives the error as the package
// that made it wrote it.
func TestErrorLinesNameTheProgram(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--node=n", "--eviction-soft=memory.available<1Gi"},
			`pressure-evictor: thresholds: eviction-soft "memory.available": grace period must be specified for the soft eviction threshold memory.available`},
		{[]string{"--node=n", "--eviction-hard=memory.available<lots"}, `pressure-evictor: thresholds: eviction-hard "memory.available<lots": invalid eviction threshold`},
		{[]string{"--node="}, "pressure-evictor: --node is empty and NODE_NAME is not set"},
	} {
		_, err := parse(tc.args, io.Discard)
		require.Error(t, err, tc.args)
		line := errorLine(err)
		assert.True(t, strings.HasPrefix(line, tc.want), line)
		assert.Equal(t, 1, strings.Count(line, "pressure-evictor: "), line)
	}
}
