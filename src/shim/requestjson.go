package main

import (
	"sort"
	"strconv"
	"unicode/utf8"
)

// encode writes the request as JSON by hand: encoding/json's reflection cost
// about 0.1 ms on its first use in a process, and the shim is a new process
// for every kubectl call. The bytes are what json.Marshal would write
// (requestjson_test.go holds it to that).
func (r credentialRequest) encode() []byte {
	b := make([]byte, 0, 512)
	b = append(b, `{"argv":[`...)
	for i, arg := range r.Argv {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, arg)
	}
	b = append(b, `],"execInfo":`...)
	if r.ExecInfo == nil {
		b = append(b, "null"...)
	} else {
		b = appendJSONString(b, *r.ExecInfo)
	}
	b = append(b, `,"stdinIsTerminal":`...)
	b = strconv.AppendBool(b, r.StdinIsTerminal)
	b = append(b, `,"parentPid":`...)
	b = strconv.AppendInt(b, int64(r.ParentPid), 10)
	b = append(b, `,"client":`...)
	b = appendJSONString(b, r.Client)
	if len(r.Environment) > 0 {
		names := make([]string, 0, len(r.Environment))
		for name := range r.Environment {
			names = append(names, name)
		}
		sort.Strings(names)
		b = append(b, `,"environment":{`...)
		for i, name := range names {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, name)
			b = append(b, ':')
			b = appendJSONString(b, r.Environment[name])
		}
		b = append(b, '}')
	}
	return append(b, '}')
}

// appendJSONString quotes s as encoding/json does: invalid UTF-8 becomes
// U+FFFD, and <, >, &, U+2028 and U+2029 are escaped too.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20 || c == '<' || c == '>' || c == '&':
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}
