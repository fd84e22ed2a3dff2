package main

import (
	"bytes"
	"errors"
)

// client-go's typed clients send a DELETE's options as protobuf (since 1.35), so a genuine
// client-go dry run is read here, field by field as the API server's protobuf serializer
// reads it: the "k8s\x00" prefix, a runtime.Unknown wrapper whose field 2 is the encoded
// metav1.DeleteOptions, and in it field 5, dryRun, a repeated string.

var protobufPrefix = []byte("k8s\x00")

var errNotProtobuf = errors.New("not protobuf the guard can read")

const (
	wireVarint      = 0
	wireFixed64     = 1
	wireLengthDelim = 2
	wireFixed32     = 5
)

// protobufDeleteOptionsDryRun: anything unusual (a second wrapped object, a content encoding,
// a field of an unexpected wire type, a truncated message) is no dry run.
func protobufDeleteOptionsDryRun(body []byte) bool {
	if !bytes.HasPrefix(body, protobufPrefix) {
		return false
	}
	var wrapped []byte
	objects := 0
	err := eachProtobufField(body[len(protobufPrefix):], func(number, wire int, value []byte) error {
		switch number {
		case 2: // raw
			if wire != wireLengthDelim {
				return errNotProtobuf
			}
			wrapped, objects = value, objects+1
		case 3: // contentEncoding
			if wire != wireLengthDelim || len(value) > 0 {
				return errNotProtobuf
			}
		}
		return nil
	})
	if err != nil || objects != 1 {
		return false
	}
	var values []string
	err = eachProtobufField(wrapped, func(number, wire int, value []byte) error {
		if number != 5 {
			return nil
		}
		if wire != wireLengthDelim {
			return errNotProtobuf
		}
		values = append(values, string(value))
		return nil
	})
	if err != nil || len(values) == 0 {
		return false
	}
	for _, v := range values {
		if v != "All" {
			return false
		}
	}
	return true
}

// eachProtobufField walks a message's fields; value is a length-delimited field's bytes (nil
// for the others, which no caller reads).
func eachProtobufField(message []byte, visit func(number, wire int, value []byte) error) error {
	for len(message) > 0 {
		key, n := protobufVarint(message)
		if n == 0 {
			return errNotProtobuf
		}
		message = message[n:]
		number, wire := int(key>>3), int(key&7)
		if number == 0 {
			return errNotProtobuf
		}
		var value []byte
		switch wire {
		case wireVarint:
			if _, n = protobufVarint(message); n == 0 {
				return errNotProtobuf
			}
		case wireFixed64:
			n = 8
		case wireFixed32:
			n = 4
		case wireLengthDelim:
			length, m := protobufVarint(message)
			if m == 0 || length > uint64(len(message)-m) {
				return errNotProtobuf
			}
			value, n = message[m:m+int(length)], m+int(length)
		default: // groups: nothing Kubernetes sends
			return errNotProtobuf
		}
		if n > len(message) {
			return errNotProtobuf
		}
		message = message[n:]
		if err := visit(number, wire, value); err != nil {
			return err
		}
	}
	return nil
}

// protobufVarint decodes a base-128 varint; n is 0 when it is truncated or over 64 bits.
func protobufVarint(b []byte) (value uint64, n int) {
	for i := 0; i < len(b) && i < 10; i++ {
		value |= uint64(b[i]&0x7f) << (7 * i)
		if b[i] < 0x80 {
			if i == 9 && b[i] > 1 {
				return 0, 0
			}
			return value, i + 1
		}
	}
	return 0, 0
}
