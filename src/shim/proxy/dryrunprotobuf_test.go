package main

import (
	"encoding/hex"
	"net/http"
	"testing"
)

// Bodies as k8s.io/apimachinery's protobuf serializer (what client-go's typed clients send)
// encodes metav1.DeleteOptions.
func TestAProtobufDeleteOptionsDryRunIsReadAsTheServerReadsIt(t *testing.T) {
	header := http.Header{"Content-Type": {"application/vnd.kubernetes.protobuf"}}
	for _, c := range []struct {
		what, hex string
		want      bool
	}{
		{"dryRun: [All]", "6b3873000a130a027631120d44656c6574654f7074696f6e7312052a03416c6c1a002200", true},
		{"no options", "6b3873000a130a027631120d44656c6574654f7074696f6e7312001a002200", false},
		{"a grace period and dryRun: [All]", "6b3873000a130a027631120d44656c6574654f7074696f6e73120708052a03416c6c1a002200", true},
		{"dryRun: [All, x]", "6b3873000a130a027631120d44656c6574654f7074696f6e7312082a03416c6c2a01781a002200", false},
		// Hand-made: a second wrapped object (the server keeps the last), a content encoding, a
		// truncated length, no prefix.
		{"two wrapped objects", "6b3873000a130a027631120d44656c6574654f7074696f6e7312052a03416c6c12001a002200", false},
		{"a content encoding", "6b3873000a130a027631120d44656c6574654f7074696f6e7312052a03416c6c1a04677a69702200", false},
		{"truncated", "6b3873000a130a027631120d44656c6574654f7074696f6e7312092a03416c6c", false},
		{"no prefix", "0a130a027631120d44656c6574654f7074696f6e7312052a03416c6c1a002200", false},
	} {
		body, err := hex.DecodeString(c.hex)
		if err != nil {
			t.Fatal(err)
		}
		if got := deleteOptionsDryRun(body, header); got != c.want {
			t.Errorf("%s: dry run %v, want %v", c.what, got, c.want)
		}
	}
}
