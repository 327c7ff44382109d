package main

import "google.golang.org/grpc/codes"

// quantiles returns the 99 cut points that divide sorted (at least one value) into 100 groups,
// computed as Python's statistics.quantiles(data, n=100) does by default (the "exclusive"
// method), so that these figures compare with bench/service_moves.py's: q[49] is the median,
// q[98] the 99th percentile.
func quantiles(sorted []float64) []float64 {
	const n = 100
	count := len(sorted)
	cuts := make([]float64, n-1)
	if count == 1 {
		for i := range cuts {
			cuts[i] = sorted[0]
		}
		return cuts
	}
	m := count + 1
	for i := 1; i < n; i++ {
		j := i * m / n // rescale i to m/n, then clamp to 1 .. count-1
		if j < 1 {
			j = 1
		} else if j > count-1 {
			j = count - 1
		}
		delta := i*m - j*n
		cuts[i-1] = (sorted[j-1]*float64(n-delta) + sorted[j]*float64(delta)) / n
	}
	return cuts
}

// codeNames are the gRPC status codes' names as the protocol (and Python's grpc.StatusCode) spells them.
var codeNames = map[codes.Code]string{
	codes.OK:                 "OK",
	codes.Canceled:           "CANCELLED",
	codes.Unknown:            "UNKNOWN",
	codes.InvalidArgument:    "INVALID_ARGUMENT",
	codes.DeadlineExceeded:   "DEADLINE_EXCEEDED",
	codes.NotFound:           "NOT_FOUND",
	codes.AlreadyExists:      "ALREADY_EXISTS",
	codes.PermissionDenied:   "PERMISSION_DENIED",
	codes.ResourceExhausted:  "RESOURCE_EXHAUSTED",
	codes.FailedPrecondition: "FAILED_PRECONDITION",
	codes.Aborted:            "ABORTED",
	codes.OutOfRange:         "OUT_OF_RANGE",
	codes.Unimplemented:      "UNIMPLEMENTED",
	codes.Internal:           "INTERNAL",
	codes.Unavailable:        "UNAVAILABLE",
	codes.DataLoss:           "DATA_LOSS",
	codes.Unauthenticated:    "UNAUTHENTICATED",
}

// codeName is a status code's name, e.g. "UNAUTHENTICATED".
func codeName(code codes.Code) string {
	if name, ok := codeNames[code]; ok {
		return name
	}
	return code.String()
}
