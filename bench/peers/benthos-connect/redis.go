package main

import (
	"context"

	"github.com/redis/go-redis/v9"
	"github.com/redpanda-data/benthos/v4/public/service"
)

// redis_list as Redpanda Connect writes a batch: one go-redis pipeline, one RPUSH per message.
type listOutput struct {
	url    string
	key    *service.InterpolatedString
	client *redis.Client
}

func (o *listOutput) Connect(ctx context.Context) error {
	opts, err := redis.ParseURL(o.url)
	if err != nil {
		return err
	}
	o.client = redis.NewClient(opts)
	return o.client.Ping(ctx).Err()
}

func (o *listOutput) WriteBatch(ctx context.Context, b service.MessageBatch) error {
	if o.client == nil {
		return service.ErrNotConnected
	}
	pipe := o.client.Pipeline()
	for i, m := range b {
		key, err := b.TryInterpolatedString(i, o.key)
		if err != nil {
			return err
		}
		body, err := m.AsBytes()
		if err != nil {
			return err
		}
		_ = pipe.RPush(ctx, key, body)
	}
	cmds, err := pipe.Exec(ctx)
	if err != nil {
		var batchErr *service.BatchError
		for i, c := range cmds {
			if c.Err() != nil {
				if batchErr == nil {
					batchErr = service.NewBatchError(b, c.Err())
				}
				batchErr.Failed(i, c.Err())
			}
		}
		if batchErr != nil {
			return batchErr
		}
		return err
	}
	return nil
}

func (o *listOutput) Close(ctx context.Context) error {
	if o.client != nil {
		return o.client.Close()
	}
	return nil
}

func registerRedis() {
	spec := service.NewConfigSpec().
		Field(service.NewStringField("url")).
		Field(service.NewInterpolatedStringField("key")).
		Field(service.NewOutputMaxInFlightField().Default(64)).
		Field(service.NewBatchPolicyField("batching"))
	err := service.RegisterBatchOutput("redis_list", spec, func(conf *service.ParsedConfig, mgr *service.Resources) (service.BatchOutput, service.BatchPolicy, int, error) {
		url, err := conf.FieldString("url")
		if err != nil {
			return nil, service.BatchPolicy{}, 0, err
		}
		key, err := conf.FieldInterpolatedString("key")
		if err != nil {
			return nil, service.BatchPolicy{}, 0, err
		}
		pol, mif, err := outputFlow(conf)
		return &listOutput{url: url, key: key}, pol, mif, err
	})
	if err != nil {
		panic(err)
	}
}
