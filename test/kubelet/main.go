// Command test-kubelet is the node end of `kubectl exec/attach/cp/port-forward/logs` for the
// test suite: a bare kube-apiserver has no kubelet, so the streams it proxies need one. It
// serves the kubelet's own paths with the kubelet's own streaming code (k8s.io/kubelet's
// cri/streaming packages: SPDY and WebSocket, the protocols a real node speaks), runs commands
// as local processes, and requires the API server's kubelet client certificate, as a kubelet
// started with --client-ca-file does.
//
//	test-kubelet --listen 127.0.0.1:0 --cert server.crt --key server.key --client-ca ca.crt --root DIR
//
// It prints "listening <host:port>" once it accepts connections.
package main

import (
	"crypto/tls"
	"crypto/x509"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "address to listen on")
	certFile := flag.String("cert", "", "serving certificate (PEM)")
	keyFile := flag.String("key", "", "serving key (PEM)")
	clientCA := flag.String("client-ca", "", "CA of the client certificates accepted (the API server's --kubelet-client-certificate)")
	root := flag.String("root", "", "working directory of every command run in a container")
	flag.Parse()
	if err := serve(*listen, *certFile, *keyFile, *clientCA, *root); err != nil {
		fmt.Fprintf(os.Stderr, "test-kubelet: %v\n", err)
		os.Exit(1)
	}
}

func serve(listen, certFile, keyFile, clientCA, root string) error {
	if certFile == "" || keyFile == "" || clientCA == "" || root == "" {
		return fmt.Errorf("--cert, --key, --client-ca and --root are required")
	}
	certificate, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return err
	}
	caPem, err := os.ReadFile(clientCA)
	if err != nil {
		return err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPem) {
		return fmt.Errorf("%s holds no PEM certificate", clientCA)
	}
	listener, err := net.Listen("tcp", listen)
	if err != nil {
		return err
	}
	server := &http.Server{
		Handler: routes(&localRuntime{root: root}),
		// HTTP/1.1 only, as a kubelet's streaming endpoints: SPDY and WebSocket upgrade from it.
		TLSConfig: &tls.Config{Certificates: []tls.Certificate{certificate}, ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: pool, NextProtos: []string{"http/1.1"}},
	}
	fmt.Printf("listening %s\n", listener.Addr())
	return server.ServeTLS(listener, "", "")
}
