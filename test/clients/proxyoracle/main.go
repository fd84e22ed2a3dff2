// Command proxyoracle prints, for each URL on stdin (one a line), the proxy Go's net/http
// would use for it under this process's environment, or DIRECT: the rules kubectl follows,
// which Kubecred's own proxy choice (src/main/platform/proxyEnvironment.ts) is held to.
package main

import (
	"bufio"
	"fmt"
	"net/http"
	"os"
)

func main() {
	lines := bufio.NewScanner(os.Stdin)
	for lines.Scan() {
		request, err := http.NewRequest("GET", lines.Text(), nil)
		if err != nil {
			fmt.Println("ERROR", err)
			continue
		}
		proxy, err := http.ProxyFromEnvironment(request)
		switch {
		case err != nil:
			fmt.Println("ERROR", err)
		case proxy == nil:
			fmt.Println("DIRECT")
		default:
			fmt.Println(proxy.String())
		}
	}
}
