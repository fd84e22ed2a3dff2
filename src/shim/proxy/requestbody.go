package main

import (
	"errors"
	"fmt"
	"net/http"
)

// bodyTheGuardReads is the body a DELETE's options are in (read whole and put back by
// takeBody, so what goes upstream is what was judged); other requests are judged by their path
// and query alone. A body it cannot read is refused: the guard cannot tell whether it is a dry
// run.
func bodyTheGuardReads(r *http.Request, profile string) ([]byte, *guardVerdict) {
	if r.Method != http.MethodDelete {
		return nil, nil
	}
	body, err := takeBody(r)
	if err == nil {
		return body, nil
	}
	status, why := http.StatusBadRequest, fmt.Sprintf("its body could not be read (%v)", err)
	if errors.Is(err, errBodyTooLarge) {
		status, why = http.StatusRequestEntityTooLarge, fmt.Sprintf("its body is over %d MiB, more than kube-apiserver takes", confirmBodyLimit>>20)
	}
	message := fmt.Sprintf("kubecred guard refused: %s %.200q: %s, so the guard of profile %s cannot tell whether it is a dry run", r.Method, r.URL.Path, why, profile)
	return nil, &guardVerdict{decision: decisionRefused, status: status, message: message}
}
