package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	authenticationv1 "k8s.io/api/authentication/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// objectCommands are the commands objects answers.
var objectCommands = map[string]bool{
	"list-configmaps": true, "delete-configmap": true, "dry-run-delete-configmap": true, "evict-pod": true, "dry-run-token": true,
}

// objects lists or deletes ConfigMaps in the default namespace, as any client-go program
// would: what a guard in front of the cluster must catch without a kubectl to wrap.
// It prints JSON: the names listed, or for a refusal the API status (code, reason, message).
func objects(kubeconfig string, args []string) int {
	config, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		return 1
	}
	clientset, err := kubernetes.NewForConfig(config)
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		return 1
	}
	configMaps := clientset.CoreV1().ConfigMaps("default")
	switch {
	case args[0] == "list-configmaps" && len(args) == 1:
		list, err := configMaps.List(context.Background(), metav1.ListOptions{})
		if err != nil {
			return refused(err)
		}
		names := []string{}
		for _, item := range list.Items {
			names = append(names, item.Name)
		}
		return printJSON(map[string]any{"names": names})
	case args[0] == "delete-configmap" && len(args) == 2:
		if err := configMaps.Delete(context.Background(), args[1], metav1.DeleteOptions{}); err != nil {
			return refused(err)
		}
		return printJSON(map[string]any{"deleted": args[1]})
	case args[0] == "dry-run-delete-configmap" && len(args) == 2:
		// client-go sends DeleteOptions in the body: the dry run the API server reads.
		if err := configMaps.Delete(context.Background(), args[1], metav1.DeleteOptions{DryRun: []string{metav1.DryRunAll}}); err != nil {
			return refused(err)
		}
		return printJSON(map[string]any{"dryRunDeleted": args[1]})
	case args[0] == "evict-pod" && len(args) == 2:
		eviction := &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: args[1], Namespace: "default"}}
		if err := clientset.CoreV1().Pods("default").EvictV1(context.Background(), eviction); err != nil {
			return refused(err)
		}
		return printJSON(map[string]any{"evicted": args[1]})
	case args[0] == "dry-run-token" && len(args) == 2:
		// A TokenRequest "dry run": the API server ignores dryRun here and mints a real token.
		request := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{}}
		answer, err := clientset.CoreV1().ServiceAccounts("default").CreateToken(context.Background(), args[1], request, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err != nil {
			return refused(err)
		}
		return printJSON(map[string]any{"tokenIssued": answer.Status.Token != ""})
	}
	fmt.Fprintln(os.Stderr, "usage: clientgo KUBECONFIG list-configmaps | delete-configmap NAME | dry-run-delete-configmap NAME | evict-pod NAME | dry-run-token SERVICEACCOUNT")
	return 2
}

// refused prints the API's Status as client-go understood it, and exits 1.
func refused(err error) int {
	var status apierrors.APIStatus
	if s, ok := err.(apierrors.APIStatus); ok {
		status = s
	}
	if status == nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		return 1
	}
	s := status.Status()
	printJSON(map[string]any{"code": s.Code, "reason": s.Reason, "message": s.Message, "forbidden": apierrors.IsForbidden(err)})
	return 1
}

func printJSON(value map[string]any) int {
	out, err := json.Marshal(value)
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		return 1
	}
	fmt.Println(string(out))
	return 0
}
