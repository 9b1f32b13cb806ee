// Command gensnap writes a synthetic cluster snapshot in the form kubectl
// get nodes,pods,pdb -A -o json|yaml prints, for whatif's scale benchmarks:
//
//	go run ./examples/whatif/internal/gensnap/cmd/gensnap -nodes 5000 -o yaml > snap.yaml
//	go run ./examples/whatif/internal/gensnap/cmd/gensnap -nodes 3000 -shape small -compact > small.json
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
	flag.IntVar(&c.Zones, "zones", 0, "number of zones (default 3, 5 for the uneven shape)")
	flag.IntVar(&c.PodsPerNode, "pods", 30, "pods per worker node")
	format := flag.String("o", "json", "json or yaml")
	flag.BoolVar(&c.Compact, "compact", false, "JSON without white space, as jq -c prints it")
	shape := flag.String("shape", "large", fmt.Sprintf("the kind of cluster, one of %v", gensnap.Shapes))
	flag.Parse()
	c.Format = gensnap.Format(*format)
	c.Shape = gensnap.Shape(*shape)
	if err := gensnap.Write(os.Stdout, c); err != nil {
		fmt.Fprintln(os.Stderr, "gensnap:", err)
		os.Exit(1)
	}
}
