package gensnap

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

func TestPrintArgs(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("ARGS_NODES"))
	if n == 0 {
		t.Skip()
	}
	c := Config{Nodes: n, Shape: Shape(os.Getenv("ARGS_SHAPE"))}
	if c.Shape != Uneven {
		c.Zones = 3
	}
	os.WriteFile(os.Getenv("ARGS_OUT")+".worker", []byte(Worker(c)), 0o644)
	os.WriteFile(os.Getenv("ARGS_OUT")+".zone", []byte(strings.Join(ZoneNodes(c, 1), " ")), 0o644)
	fmt.Println(Worker(c), len(ZoneNodes(c, 1)))
}
