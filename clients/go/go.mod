// The Go client of cardgame.v1.GameService: the stubs generated from proto/ (gen/, made by
// `make`), the client package and the playhand example. `make` builds offline from Debian's Go
// packages (see Makefile); with the Go module proxy, `go mod tidy && go build ./...` works too.
module cardgame

go 1.16

require (
	google.golang.org/grpc v1.33.3
	google.golang.org/protobuf v1.28.1
)
