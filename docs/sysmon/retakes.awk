# retakes.awk counts the Ps that the Go runtime's sysmon took from threads in
# a system call, in an execution trace as `go tool trace -d=parsed` prints it,
# and how long the P's goroutine had then been in its call (the longest).
# sysmon holds no P and runs no goroutine, so its retake (proc.go: retake,
# takeP) shows as a P going from Running to Idle on an M with P=-1 G=-1.
#
#	go tool trace -d=parsed pi.trace | awk -f docs/sysmon/retakes.awk
#
# docs/predict.md ("The Go runtime's effect") gives the trace's command.
/StateTransition/ {
	split($5, t, "=")
	if ($6 ~ /^GoID=/ && $7 == "Running->Syscall") {
		split($2, p, "=")
		insys[p[2]] = t[2]
	}
	if ($2 == "P=-1" && $3 == "G=-1" && $6 ~ /^ProcID=/ && $7 == "Running->Idle") {
		split($6, q, "=")
		taken++
		if (q[2] in insys) {
			d = (t[2] - insys[q[2]]) / 1000
			if (d > longest)
				longest = d
		}
	}
}
END { printf "%d Ps taken by sysmon, each after at most %.0f µs in a system call\n", taken, longest }
