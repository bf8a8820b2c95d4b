package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/gcbench/gcbench/analysis/render"
	"github.com/gcbench/gcbench/analysis/report"
	"github.com/gcbench/gcbench/cmd/gcbench/internal/host"
	"github.com/gcbench/gcbench/cmd/gcbench/internal/seeds"
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

// writeProtocol ends a benchmark protocol's command, whose run ended
// with err: bad options are bad usage, and a failure that measured
// nothing ends the command; else the result is printed, in format f, as
// JSON (doc's document under the command's name and the host) or by text,
// and err follows it (a cancelled run still shows the repetitions it
// finished).
func writeProtocol(e *env, command, what string, f render.Format, err error, measured bool, doc func() any, text func(io.Writer) error) error {
	switch {
	case errors.Is(err, seeds.ErrInvalidOptions):
		return usagef("%v", err)
	case err != nil && !measured:
		return fmt.Errorf("running %s: %w", what, err)
	case f == render.JSON:
		return joinErrors(err, writeProtocolJSON(e.stdout, command, doc()))
	}
	return joinErrors(err, text(e.stdout))
}
