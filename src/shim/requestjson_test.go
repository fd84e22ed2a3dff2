package main

import (
	"encoding/json"
	"testing"
)

func TestRequestJSONIsWhatEncodingJSONWrites(t *testing.T) {
	info := "{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"spec\":{\"interactive\":true}}\n"
	odd := "quote\" back\\ nl\n cr\r tab\t nul\x00 bell\x07 esc\x1b del\x7f <>& \u2028\u2029 é 🙂 bad\xff\xfe end"
	for name, r := range map[string]credentialRequest{
		"plain":     {Argv: []string{"credential", "prod"}, ExecInfo: &info, ParentPid: 4242, Client: "shim"},
		"no info":   {Argv: []string{"credential", "prod", "--api-version", "v1"}, StdinIsTerminal: true, Client: "shim"},
		"no argv":   {Argv: nil, Client: "shim"},
		"odd":       {Argv: []string{odd, ""}, ExecInfo: &odd, ParentPid: -1, Client: odd, Environment: map[string]string{odd: odd}},
		"env sort":  {Argv: []string{"credential", "x"}, Client: "shim", Environment: map[string]string{"SOFTHSM2_CONF": "/b", "DBUS_SESSION_BUS_ADDRESS": "unix:path=/a", "OPENSC_CONF": "/c"}},
		"empty env": {Argv: []string{"credential", "x"}, Client: "shim", Environment: map[string]string{}},
	} {
		want, err := json.Marshal(struct {
			Argv            []string          `json:"argv"`
			ExecInfo        *string           `json:"execInfo"`
			StdinIsTerminal bool              `json:"stdinIsTerminal"`
			ParentPid       int               `json:"parentPid"`
			Client          string            `json:"client"`
			Environment     map[string]string `json:"environment,omitempty"`
		}(r))
		if err != nil {
			t.Fatal(err)
		}
		if name == "no argv" {
			want = []byte(`{"argv":[],` + string(want[len(`{"argv":null,`):]))
		}
		if got := r.encode(); string(got) != string(want) {
			t.Errorf("%s:\n got %s\nwant %s", name, got, want)
		}
	}
}
