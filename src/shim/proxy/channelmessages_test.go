package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// The examples the broker's zod schemas are held to too (test/unit/shared/proxyControl.test.ts).
var channelExamples = filepath.Join("..", "..", "..", "test", "fixtures", "proxy-control")

// exampleKind is an example's message: its name without the variant (broker.init.request.new-ca).
func exampleKind(name string) string {
	parts := strings.Split(name, ".")
	if parts[0] == "envelope" || parts[0] == "event" {
		return strings.Join(parts[:2], ".")
	}
	return strings.Join(parts[:min(3, len(parts))], ".")
}

// keyPaths lists every key of a JSON value, nested ones as a.b and a.list[].c.
func keyPaths(value any, prefix string) []string {
	var paths []string
	switch v := value.(type) {
	case map[string]any:
		for key, inner := range v {
			paths = append(paths, prefix+key)
			paths = append(paths, keyPaths(inner, prefix+key+".")...)
		}
	case []any:
		for _, item := range v {
			paths = append(paths, keyPaths(item, prefix+"[]")...)
		}
	}
	sort.Strings(paths)
	return paths
}

// lostFields lists the key paths of example that encoded lacks or holds another value at.
func lostFields(example, encoded any, prefix string) []string {
	want, isObject := example.(map[string]any)
	if !isObject {
		if list, isList := example.([]any); isList {
			got, _ := encoded.([]any)
			if len(got) != len(list) {
				return []string{prefix + "[]"}
			}
			var lost []string
			for i := range list {
				lost = append(lost, lostFields(list[i], got[i], prefix+"[]")...)
			}
			return lost
		}
		if !reflect.DeepEqual(example, encoded) {
			return []string{strings.TrimSuffix(prefix, ".")}
		}
		return nil
	}
	got, _ := encoded.(map[string]any)
	var lost []string
	for key, value := range want {
		inner, present := got[key]
		if !present {
			lost = append(lost, prefix+key)
			continue
		}
		lost = append(lost, lostFields(value, inner, prefix+key+".")...)
	}
	sort.Strings(lost)
	return lost
}

func decodeJSON(t *testing.T, raw []byte) any {
	t.Helper()
	var value any
	if err := json.Unmarshal(raw, &value); err != nil {
		t.Fatal(err)
	}
	return value
}

// Issue 41, item 4: each example decodes into the Go type of its message, which knows every
// field of it, and encodes again with every field and value it had: a field the proxy drops
// (or never reads) fails here.
func TestEveryChannelExampleSurvivesTheGoTypes(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(channelExamples, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples in %s: %v", channelExamples, err)
	}
	covered := map[string]bool{}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".json")
		t.Run(name, func(t *testing.T) {
			newMessage, ok := channelMessages[exampleKind(name)]
			if !ok {
				t.Fatalf("no Go type for %s: add it to channelMessages", exampleKind(name))
			}
			covered[exampleKind(name)] = true
			raw, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			message := newMessage()
			decoder := json.NewDecoder(bytes.NewReader(raw))
			decoder.DisallowUnknownFields()
			if err := decoder.Decode(message); err != nil {
				t.Fatalf("%T does not take the example: %v", message, err)
			}
			again, err := json.Marshal(message)
			if err != nil {
				t.Fatal(err)
			}
			// Encoding may add fields the example leaves out (zero values without omitempty); it
			// may lose or change none of the example's.
			if lost := lostFields(decodeJSON(t, raw), decodeJSON(t, again), ""); len(lost) > 0 {
				t.Fatalf("%T lost or changed %v of the example:\nwant %s\ngot  %s", message, lost, raw, again)
			}
		})
	}
	for kind := range channelMessages {
		if !covered[kind] {
			t.Errorf("no example of %s in %s", kind, channelExamples)
		}
	}
}

// What the proxy builds as maps has the fields of its example: the stats and init replies.
func TestTheProxysRepliesHaveTheExamplesFields(t *testing.T) {
	read := func(name string) []string {
		raw, err := os.ReadFile(filepath.Join(channelExamples, name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		return keyPaths(decodeJSON(t, raw), "")
	}
	asJSON := func(value any) []string {
		raw, err := json.Marshal(value)
		if err != nil {
			t.Fatal(err)
		}
		return keyPaths(decodeJSON(t, raw), "")
	}
	p := newProxy(newController(&bytes.Buffer{}, &bytes.Buffer{}))
	if got, want := asJSON(p.stats()), read("broker.stats.reply"); !reflect.DeepEqual(got, want) {
		t.Errorf("stats: %v, the example %v", got, want)
	}
	initialised, err := p.init(nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := asJSON(initialised), read("broker.init.reply"); !reflect.DeepEqual(got, want) {
		t.Errorf("init: %v, the example %v", got, want)
	}
}
