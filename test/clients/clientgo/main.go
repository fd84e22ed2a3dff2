// Command clientgo is a test client for Kubecred's integration tests: it loads
// the kubeconfig named by its first argument with client-go's clientcmd (so the
// exec credential plugin machinery of the reference implementation runs for
// real), asks the API server for its version and who it takes the caller for
// (a SelfSubjectReview, which needs the credential to be accepted), and prints
// both as JSON on stdout. On failure it prints the error on stderr and exits
// non-zero. With more arguments it opens a stream to a pod instead (streams.go):
//
//	clientgo KUBECONFIG exec POD websocket|spdy COMMAND...
//	clientgo KUBECONFIG port-forward POD PORT websocket|spdy PATH
//
// or lists or deletes ConfigMaps (objects.go):
//
//	clientgo KUBECONFIG list-configmaps | delete-configmap NAME
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: clientgo KUBECONFIG [exec POD PROTOCOL COMMAND... | port-forward POD PORT PROTOCOL PATH]")
		os.Exit(2)
	}
	if len(os.Args) > 2 && objectCommands[os.Args[2]] {
		os.Exit(objects(os.Args[1], os.Args[2:]))
	}
	if len(os.Args) > 2 {
		os.Exit(stream(os.Args[1], os.Args[2:]))
	}
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

func run(kubeconfig string) error {
	config, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return fmt.Errorf("load kubeconfig: %w", err)
	}
	clientset, err := kubernetes.NewForConfig(config)
	if err != nil {
		return fmt.Errorf("create client: %w", err)
	}
	info, err := clientset.Discovery().ServerVersion()
	if err != nil {
		return fmt.Errorf("server version: %w", err)
	}
	review, err := clientset.AuthenticationV1().SelfSubjectReviews().Create(context.Background(), &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("who am I: %w", err)
	}
	out, err := json.Marshal(map[string]any{"gitVersion": info.GitVersion, "username": review.Status.UserInfo.Username, "groups": review.Status.UserInfo.Groups})
	if err != nil {
		return err
	}
	fmt.Println(string(out))
	return nil
}
