package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/gcbench/gcbench/internal/host"
	"github.com/gcbench/gcbench/internal/protocols"
	"github.com/gcbench/gcbench/report"
)

// The benchmark protocols' commands (pool, readylist, trace-stress) and
// trace's summary end alike: a protocol's error is sorted into bad usage
// or failure, and JSON output names the command and the host.

// protocolResult is the JSON document of a benchmark protocol's command:
// which command, on what host, and the protocol's report.
type protocolResult struct {
	Command string      `json:"command"`
	Host    report.Host `json:"host"`
	Report  any         `json:"report"`
}

func writeProtocolJSON(w io.Writer, command string, report any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(protocolResult{Command: command, Host: host.Probe(), Report: report}); err != nil {
		return fmt.Errorf("writing JSON: %w", err)
	}
	return nil
}

// protocolFailure sorts a benchmark protocol's error: bad options are bad
// usage, and a failure that measured nothing ends the command. It returns
// nil when there is something to print: a whole result (err is nil) or the
// repetitions finished before a cancel (the caller prints them and then
// returns err).
func protocolFailure(err error, measured bool, what string) error {
	switch {
	case errors.Is(err, protocols.ErrInvalidOptions):
		return usagef("%v", err)
	case err != nil && !measured:
		return fmt.Errorf("running %s: %w", what, err)
	}
	return nil
}
