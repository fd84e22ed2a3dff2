//go:build windows

package main

import (
	"context"
	"errors"
)

// startBroker: on Windows the CLI starts the broker (a detached process
// there is the CLI's to make); the shim hands over.
func startBroker(context.Context, string, []string, getenvFunc, func(string)) error {
	return errors.New("the CLI starts the broker on Windows")
}
