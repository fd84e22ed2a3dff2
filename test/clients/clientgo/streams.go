package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/tools/portforward"
	"k8s.io/client-go/tools/remotecommand"
	"k8s.io/client-go/transport/spdy"
	utilexec "k8s.io/client-go/util/exec"
)

// stream runs exec or port-forward against a pod in the default namespace, over the
// protocol named (websocket or spdy), and returns the process's exit code.
func stream(kubeconfig string, args []string) int {
	config, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err == nil {
		switch {
		case args[0] == "exec" && len(args) >= 4:
			err = execInPod(config, args[1], args[2], args[3:])
		case args[0] == "port-forward" && len(args) == 5:
			err = forwardAndGet(config, args[1], args[2], args[3], args[4])
		default:
			err = errors.New("unknown stream command")
		}
	}
	var exitErr utilexec.ExitError
	if errors.As(err, &exitErr) && exitErr.Exited() {
		return exitErr.ExitStatus()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		return 1
	}
	return 0
}

func execInPod(config *rest.Config, pod, protocol string, command []string) error {
	clientset, err := kubernetes.NewForConfig(config)
	if err != nil {
		return err
	}
	request := clientset.CoreV1().RESTClient().Post().Resource("pods").Namespace("default").Name(pod).SubResource("exec").
		VersionedParams(&corev1.PodExecOptions{Command: command, Stdin: true, Stdout: true, Stderr: true}, scheme.ParameterCodec)
	var executor remotecommand.Executor
	if protocol == "websocket" {
		executor, err = remotecommand.NewWebSocketExecutor(config, "GET", request.URL().String())
	} else {
		executor, err = remotecommand.NewSPDYExecutor(config, "POST", request.URL())
	}
	if err != nil {
		return err
	}
	return executor.StreamWithContext(context.Background(), remotecommand.StreamOptions{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr})
}

// forwardAndGet forwards a free local port to the pod's port, fetches path through it and
// prints the body: one program proves the whole round trip.
func forwardAndGet(config *rest.Config, pod, port, protocol, path string) error {
	clientset, err := kubernetes.NewForConfig(config)
	if err != nil {
		return err
	}
	url := clientset.CoreV1().RESTClient().Post().Resource("pods").Namespace("default").Name(pod).SubResource("portforward").URL()
	transport, upgrader, err := spdy.RoundTripperFor(config)
	if err != nil {
		return err
	}
	dialer := spdy.NewDialer(upgrader, &http.Client{Transport: transport}, "POST", url)
	if protocol == "websocket" {
		if dialer, err = portforward.NewSPDYOverWebsocketDialer(url, config); err != nil {
			return err
		}
	}
	stop, ready := make(chan struct{}), make(chan struct{})
	defer close(stop)
	forwarder, err := portforward.NewOnAddresses(dialer, []string{"127.0.0.1"}, []string{"0:" + port}, stop, ready, io.Discard, os.Stderr)
	if err != nil {
		return err
	}
	failed := make(chan error, 1)
	go func() { failed <- forwarder.ForwardPorts() }()
	select {
	case err := <-failed:
		return err
	case <-ready:
	}
	ports, err := forwarder.GetPorts()
	if err != nil {
		return err
	}
	response, err := http.Get("http://127.0.0.1:" + strconv.Itoa(int(ports[0].Local)) + path)
	if err != nil {
		return err
	}
	defer response.Body.Close()
	_, err = io.Copy(os.Stdout, response.Body)
	return err
}
