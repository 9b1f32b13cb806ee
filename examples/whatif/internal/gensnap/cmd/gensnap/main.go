// Command gensnap writes a synthetic cluster snapshot in the form kubectl
// get nodes,pods,pdb -A -o json|yaml prints, for whatif's scale benchmarks:
//
//	go run ./examples/whatif/internal/gensnap/cmd/gensnap -nodes 5000 -o yaml > snap.yaml
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/evictkit/eviction/examples/whatif/internal/gensnap"
)

func main() {
	var c gensnap.Config
	flag.IntVar(&c.Nodes, "nodes", 1000, "number of nodes")
	flag.IntVar(&c.Zones, "zones", 3, "number of zones")
	flag.IntVar(&c.PodsPerNode, "pods", 30, "pods per worker node")
	format := flag.String("o", "json", "json or yaml")
	flag.Parse()
	c.Format = gensnap.Format(*format)
	if err := gensnap.Write(os.Stdout, c); err != nil {
		fmt.Fprintln(os.Stderr, "gensnap:", err)
		os.Exit(1)
	}
}
