package main

import (
	"net/http"
	"time"

	remotecommandconsts "k8s.io/apimachinery/pkg/util/remotecommand"
	"k8s.io/kubelet/pkg/cri/streaming/portforward"
	"k8s.io/kubelet/pkg/cri/streaming/remotecommand"
)

// The kubelet's defaults: a stream idle this long is closed, a client gets this long to open
// the streams it announced.
const (
	idleTimeout           = 4 * time.Hour
	streamCreationTimeout = 30 * time.Second
)

// routes serves the paths the API server proxies to a node (pkg/registry/core/pod: streamLocation,
// PortForwardLocation, LogLocation): /exec|attach/{namespace}/{pod}/{container},
// /portForward/{namespace}/{pod}, /containerLogs/{namespace}/{pod}/{container}.
func routes(runtime *localRuntime) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/exec/{namespace}/{pod}/{container}", func(w http.ResponseWriter, r *http.Request) {
		options, err := remotecommand.NewOptions(r)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		remotecommand.ServeExec(w, r, runtime, r.PathValue("pod"), "", r.PathValue("container"), r.URL.Query()["command"], options, idleTimeout, streamCreationTimeout, remotecommandconsts.SupportedStreamingProtocols)
	})
	mux.HandleFunc("/attach/{namespace}/{pod}/{container}", func(w http.ResponseWriter, r *http.Request) {
		options, err := remotecommand.NewOptions(r)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		remotecommand.ServeAttach(w, r, runtime, r.PathValue("pod"), "", r.PathValue("container"), options, idleTimeout, streamCreationTimeout, remotecommandconsts.SupportedStreamingProtocols)
	})
	mux.HandleFunc("/portForward/{namespace}/{pod}", func(w http.ResponseWriter, r *http.Request) {
		options, err := portforward.NewV4Options(r)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		portforward.ServePortForward(w, r, runtime, r.PathValue("pod"), "", options, idleTimeout, streamCreationTimeout, portforward.SupportedProtocols)
	})
	mux.HandleFunc("/containerLogs/{namespace}/{pod}/{container}", func(w http.ResponseWriter, r *http.Request) {
		serveLogs(w, r, r.PathValue("pod")+"/"+r.PathValue("container"))
	})
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) })
	return mux
}
