package main

import (
	"bytes"
	"encoding/json"
	"mime"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// bodyPreviewLimit bounds the body text a confirm question carries: enough for the patch
// kubectl edit, scale or label sends; a longer one is cut and the person is told.
const bodyPreviewLimit = 2 << 10

// queryPreviewLimit bounds the query shown beside it (force=true, dryRun, fieldManager).
const queryPreviewLimit = 1 << 10

// bodyPreview is a body as the person reads it in the question: printable text, or only its
// size and type when it is not text (protobuf, CBOR, compressed).
type bodyPreview struct {
	bytes     int
	mediaType string
	encoding  string // Content-Encoding, when the body is not sent as is
	text      bool
	preview   string
	truncated bool
}

// previewBody makes what the window shows of a body. JSON is compacted (kubectl indents its
// patches; spaces would spend the preview) with its tokens kept as sent, a key written twice
// included, since the server reads the last. Text that is not valid UTF-8 is not shown as text.
func previewBody(contentType, contentEncoding string, body []byte) bodyPreview {
	p := bodyPreview{bytes: len(body), mediaType: mediaTypeOf(contentType)}
	if contentEncoding != "" && !strings.EqualFold(contentEncoding, "identity") {
		p.encoding, _ = printable(contentEncoding, 64)
		return p
	}
	if len(body) == 0 || !utf8.Valid(body) {
		return p
	}
	text := body
	if json.Valid(body) {
		var compact bytes.Buffer
		if json.Compact(&compact, body) == nil {
			text = compact.Bytes()
		}
	}
	p.text = true
	p.preview, p.truncated = printable(string(text), bodyPreviewLimit)
	return p
}

// mediaTypeOf is the media type without its parameters, or the header as sent (bounded and
// printable) when it does not parse, so an odd one is still shown rather than hidden.
func mediaTypeOf(contentType string) string {
	if contentType == "" {
		return ""
	}
	if mediaType, _, err := mime.ParseMediaType(contentType); err == nil {
		return mediaType
	}
	shown, _ := printable(contentType, 128)
	return shown
}

// printable is s for a person's eyes, at most limit bytes (whole characters): a character that
// does not show or shows as something else (controls, bidirectional overrides, zero-width and
// tag characters, spaces other than U+0020) is written as its JSON escape, \u202e, so the
// text cannot look unlike what the server reads, and JSON stays the same JSON.
func printable(s string, limit int) (string, bool) {
	var out strings.Builder
	for _, r := range s {
		piece := string(r)
		if r != '\n' && r != '\t' && !unicode.IsPrint(r) {
			piece = jsonEscape(r)
		}
		if out.Len()+len(piece) > limit {
			return out.String(), true
		}
		out.WriteString(piece)
	}
	return out.String(), false
}

func jsonEscape(r rune) string {
	if r > 0xffff {
		high, low := utf16.EncodeRune(r)
		return jsonEscape(high) + jsonEscape(low)
	}
	const hex = "0123456789abcdef"
	return string([]byte{'\\', 'u', hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf]})
}

// fields is the preview as the confirm message carries it.
func (p bodyPreview) fields() map[string]any {
	fields := map[string]any{"bytes": p.bytes, "mediaType": p.mediaType, "text": p.text, "preview": p.preview, "truncated": p.truncated}
	if p.encoding != "" {
		fields["encoding"] = p.encoding
	}
	return fields
}
