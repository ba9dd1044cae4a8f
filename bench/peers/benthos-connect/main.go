// Benthos v4.51 core (io + pure) plus redis_list, sql_insert and sql_select written as Redpanda
// Connect writes them (redis.go, sql.go): the Benthos peer of the bench's connector rows, since the
// Go module proxy here does not serve Connect's own module.
package main

import (
	"context"

	_ "github.com/redpanda-data/benthos/v4/public/components/io"
	_ "github.com/redpanda-data/benthos/v4/public/components/pure"
	"github.com/redpanda-data/benthos/v4/public/service"
)

// outputFlow reads a batch output's `batching` and `max_in_flight` fields.
func outputFlow(conf *service.ParsedConfig) (service.BatchPolicy, int, error) {
	mif, err := conf.FieldMaxInFlight()
	if err != nil {
		return service.BatchPolicy{}, 0, err
	}
	pol, err := conf.FieldBatchPolicy("batching")
	return pol, mif, err
}

func main() {
	registerRedis()
	registerSQL()
	service.RunCLI(context.Background())
}
