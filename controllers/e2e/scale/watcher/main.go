// Command watcher watches what the node lifecycle and taint-eviction
// controllers watch, through the informers our controllers use (every pod
// and node, the Leases of kube-node-lease; protobuf, managed fields
// dropped), and does nothing else: no index, no decision, no write. The
// scale harness runs it beside a variant's controllers (-watcher) to measure
// the floor any implementation of those controllers pays at that size, the
// CPU and memory of receiving, decoding and caching the watch streams.
//
//	watcher --kubeconfig=FILE
//
// It runs until SIGINT or SIGTERM.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/evictkit/eviction/controllers/internal/manager"
)

func main() {
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig of the API server to watch")
	flag.Parse()
	if err := run(*kubeconfig); err != nil {
		fmt.Fprintln(os.Stderr, "watcher:", err)
		os.Exit(1)
	}
}

func run(kubeconfig string) error {
	if kubeconfig == "" {
		return fmt.Errorf("--kubeconfig is required")
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return fmt.Errorf("--kubeconfig %q: %w", kubeconfig, err)
	}
	cfg.ContentType = runtime.ContentTypeProtobuf
	cfg.AcceptContentTypes = runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()

	all := manager.NewFactory(client)
	leases := manager.NewFactory(client, informers.WithNamespace(v1.NamespaceNodeLease))
	// One handler each, that does nothing: the controllers' handlers are
	// called for every event, and the calls are part of the floor.
	nothing := cache.ResourceEventHandlerFuncs{}
	for _, inf := range []cache.SharedIndexInformer{
		all.Core().V1().Pods().Informer(),
		all.Core().V1().Nodes().Informer(),
		leases.Coordination().V1().Leases().Informer(),
	} {
		if _, err := inf.AddEventHandler(nothing); err != nil {
			return err
		}
	}
	all.Start(ctx.Done())
	leases.Start(ctx.Done())
	<-ctx.Done()
	all.Shutdown()
	leases.Shutdown()
	return nil
}
