package scale

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"
)

// controllersUser is the user both kube-controller-manager and our
// controllers reach the API server as; the audit policy logs only its
// requests.
const controllersUser = "scale-controllers"

// auditPolicy logs the metadata of the controllers' requests, once each,
// when the response is complete, and nothing else.
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived, ResponseStarted, Panic]
rules:
- level: Metadata
  users: [` + controllersUser + `]
- level: None
`

// auditArgs are kube-apiserver's flags for an audit log at path with policy.
func auditArgs(policy, path string) []string {
	return []string{
		"--audit-policy-file=" + policy,
		"--audit-log-path=" + path,
		"--audit-log-format=json",
		"--audit-log-mode=batch",
		"--audit-log-batch-max-wait=1s",
		"--audit-log-maxsize=0",
	}
}

// auditEvent is the part of an audit event that requests are counted by.
type auditEvent struct {
	Verb      string                    `json:"verb"`
	User      struct{ Username string } `json:"user"`
	ObjectRef *struct {
		Resource    string `json:"resource"`
		Subresource string `json:"subresource"`
	} `json:"objectRef"`
	ResponseStatus *struct {
		Code int `json:"code"`
	} `json:"responseStatus"`
	StageTimestamp time.Time `json:"stageTimestamp"`
}

// Requests counts API requests by verb and resource ("pods/status"). A
// request the API server refused (a 4xx answer: a conflict with the
// resourceVersion it carried, a pod already gone) wrote nothing and counts
// apart, as "refused patch nodes": how many there are depends on how the
// controllers' writes fell between kwok's, not on what they decided.
type Requests map[string]int

// refused prefixes the key of a request the API server refused.
const refused = "refused "

// key is how Requests names a request: "patch pods/status".
func requestKey(verb, resource, subresource string) string {
	if subresource != "" {
		resource += "/" + subresource
	}
	return verb + " " + resource
}

// writeVerbs are the verbs that change an object.
var writeVerbs = []string{"create", "update", "patch", "delete", "deletecollection"}

// Writes returns how many of r change an object.
func (r Requests) Writes() int {
	return r.count(func(verb, _ string) bool { return slices.Contains(writeVerbs, verb) })
}

// DecisionWrites returns how many of r change an object other than an
// Event: the writes the controllers' decisions make. Events are apart
// because kube-controller-manager's recorder drops them when its queue of
// 1,000 is full, where ours records every one.
func (r Requests) DecisionWrites() int {
	return r.count(func(verb, resource string) bool {
		return slices.Contains(writeVerbs, verb) && resource != "events"
	})
}

// Total returns the number of requests in r.
func (r Requests) Total() int {
	return r.count(func(string, string) bool { return true })
}

// count sums the requests whose verb and resource (without subresource)
// keep says.
func (r Requests) count(keep func(verb, resource string) bool) int {
	n := 0
	for k, c := range r {
		verb, resource, _ := strings.Cut(k, " ")
		resource, _, _ = strings.Cut(resource, "/")
		if keep(verb, resource) {
			n += c
		}
	}
	return n
}

// readAudit counts the requests of user in the JSON-lines audit log at path
// whose response completed at or after since.
func readAudit(path, user string, since time.Time) (Requests, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("scale: audit log: %w", err)
	}
	defer f.Close()
	return countAudit(f, user, since)
}

// countAudit counts the requests of user in the audit events read from r.
func countAudit(r io.Reader, user string, since time.Time) (Requests, error) {
	out := Requests{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for line := 1; sc.Scan(); line++ {
		if len(strings.TrimSpace(sc.Text())) == 0 {
			continue
		}
		var e auditEvent
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return nil, fmt.Errorf("scale: audit log line %d: %w", line, err)
		}
		if e.User.Username != user || e.StageTimestamp.Before(since) {
			continue
		}
		resource, sub := "", ""
		if e.ObjectRef != nil {
			resource, sub = e.ObjectRef.Resource, e.ObjectRef.Subresource
		}
		key := requestKey(e.Verb, resource, sub)
		if e.ResponseStatus != nil && e.ResponseStatus.Code >= 400 && e.ResponseStatus.Code < 500 {
			key = refused + key
		}
		out[key]++
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("scale: audit log: %w", err)
	}
	return out, nil
}
