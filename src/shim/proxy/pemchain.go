package main

import "encoding/pem"

// pemCertificates is every CERTIFICATE block of a PEM text, in order, as DER; other blocks
// (a key pasted in by mistake) are skipped, never kept.
func pemCertificates(text []byte) [][]byte {
	var chain [][]byte
	for rest := text; ; {
		var block *pem.Block
		if block, rest = pem.Decode(rest); block == nil {
			return chain
		}
		if block.Type == "CERTIFICATE" {
			chain = append(chain, block.Bytes)
		}
	}
}
