// Command requestinfo is the oracle that holds kubecred-proxy's request parsing to
// kube-apiserver's own: it reads src/shim/proxy/testdata/requestinfo.json, runs every case
// through k8s.io/apiserver's RequestInfoFactory (the version the tests' API server is built
// from), and says where the table's expectations differ from what the real package finds.
//
//	requestinfo TABLE            exit 1 and a line per difference
//	requestinfo -write TABLE     rewrite the expectations with the package's answers
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"net/http/httptest"
	"os"

	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apiserver/pkg/endpoints/request"
)

// requestInfo is the part of request.RequestInfo a guard rule is matched on.
type requestInfo struct {
	ResourceRequest bool   `json:"resourceRequest"`
	Verb            string `json:"verb"`
	Group           string `json:"group"`
	Version         string `json:"version"`
	Resource        string `json:"resource"`
	Subresource     string `json:"subresource"`
	Namespace       string `json:"namespace"`
	Name            string `json:"name"`
}

type tableCase struct {
	What   string      `json:"what"`
	Method string      `json:"method"`
	Target string      `json:"target"`
	Want   requestInfo `json:"want"`
	// Refused: the API server answers the request with an error, so it reaches nothing.
	Refused bool `json:"refused,omitempty"`
}

func main() {
	write := flag.Bool("write", false, "rewrite the expectations with the package's answers")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: requestinfo [-write] TABLE.json")
		os.Exit(2)
	}
	path := flag.Arg(0)
	raw, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	var cases []tableCase
	if err := json.Unmarshal(raw, &cases); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", path, err)
		os.Exit(2)
	}
	factory := request.RequestInfoFactory{APIPrefixes: sets.NewString("api", "apis"), GrouplessAPIPrefixes: sets.NewString("api")}
	differences := 0
	for i, c := range cases {
		info, err := factory.NewRequestInfo(httptest.NewRequest(c.Method, c.Target, nil))
		if err != nil {
			if !c.Refused {
				fmt.Printf("%s (%s %s): the API server refuses it (%v), the table does not say so\n", c.What, c.Method, c.Target, err)
				differences++
			}
			cases[i].Want, cases[i].Refused = requestInfo{}, true
			continue
		}
		if c.Refused {
			fmt.Printf("%s (%s %s): the table says refused, the API server takes it\n", c.What, c.Method, c.Target)
			differences++
		}
		cases[i].Refused = false
		got := requestInfo{info.IsResourceRequest, info.Verb, info.APIGroup, info.APIVersion, info.Resource, info.Subresource, info.Namespace, info.Name}
		if !info.IsResourceRequest {
			got = requestInfo{Verb: info.Verb} // the rest is the path, which the guard reads as such
		}
		if got != c.Want {
			differences++
			fmt.Printf("%s (%s %s):\n  table   %+v\n  apiserver %+v\n", c.What, c.Method, c.Target, c.Want, got)
		}
		cases[i].Want = got
	}
	if *write {
		var out bytes.Buffer
		out.WriteString("[\n")
		for i, c := range cases {
			line, _ := json.Marshal(c)
			out.WriteString("  ")
			out.Write(line)
			if i < len(cases)-1 {
				out.WriteString(",")
			}
			out.WriteString("\n")
		}
		out.WriteString("]\n")
		if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		return
	}
	if differences > 0 {
		fmt.Printf("%d of %d cases differ from k8s.io/apiserver's RequestInfoFactory\n", differences, len(cases))
		os.Exit(1)
	}
	fmt.Printf("%d cases: the table is what k8s.io/apiserver's RequestInfoFactory finds\n", len(cases))
}
