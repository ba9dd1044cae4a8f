package main

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	_ "github.com/lib/pq"
	"github.com/redpanda-data/benthos/v4/public/bloblang"
	"github.com/redpanda-data/benthos/v4/public/service"
	_ "modernc.org/sqlite"
)

// sql_insert and sql_select as Redpanda Connect runs them: database/sql with lib/pq (postgres)
// and modernc.org/sqlite (sqlite); an insert per batch of all its rows (squirrel's multi-row
// INSERT, autocommit), a select as one query read row by row (rows.Next), a message per row.

func placeholders(driver string, rows, cols int) string {
	var sb strings.Builder
	n := 1
	for r := 0; r < rows; r++ {
		if r > 0 {
			sb.WriteString(",")
		}
		sb.WriteString("(")
		for c := 0; c < cols; c++ {
			if c > 0 {
				sb.WriteString(",")
			}
			if driver == "postgres" {
				fmt.Fprintf(&sb, "$%d", n)
			} else {
				sb.WriteString("?")
			}
			n++
		}
		sb.WriteString(")")
	}
	return sb.String()
}

type insertOutput struct {
	driver, dsn, table, init string
	maxOpen                  int
	columns                  []string
	args                     *bloblang.Executor
	db                       *sql.DB
}

func (o *insertOutput) Connect(ctx context.Context) error {
	db, err := sql.Open(o.driver, o.dsn)
	if err != nil {
		return err
	}
	if o.maxOpen > 0 {
		db.SetMaxOpenConns(o.maxOpen)
	}
	if o.init != "" {
		if _, err := db.ExecContext(ctx, o.init); err != nil {
			return err
		}
	}
	o.db = db
	return nil
}

func (o *insertOutput) WriteBatch(ctx context.Context, b service.MessageBatch) error {
	args := make([]any, 0, len(b)*len(o.columns))
	for i := range b {
		m, err := b.BloblangQuery(i, o.args)
		if err != nil {
			return err
		}
		v, err := m.AsStructured()
		if err != nil {
			return err
		}
		row, ok := v.([]any)
		if !ok {
			return fmt.Errorf("mapping returned non-array result: %T", v)
		}
		args = append(args, row...)
	}
	q := fmt.Sprintf("INSERT INTO %s (%s) VALUES %s", o.table, strings.Join(o.columns, ","), placeholders(o.driver, len(b), len(o.columns)))
	_, err := o.db.ExecContext(ctx, q, args...)
	return err
}

func (o *insertOutput) Close(ctx context.Context) error {
	if o.db != nil {
		return o.db.Close()
	}
	return nil
}

type selectInput struct {
	driver, dsn, query string
	db                 *sql.DB
	rows               *sql.Rows
	cols               []string
}

func (s *selectInput) Connect(ctx context.Context) error {
	if s.db != nil {
		return nil
	}
	db, err := sql.Open(s.driver, s.dsn)
	if err != nil {
		return err
	}
	rows, err := db.QueryContext(context.Background(), s.query)
	if err != nil {
		return err
	}
	if s.cols, err = rows.Columns(); err != nil {
		return err
	}
	s.db, s.rows = db, rows
	return nil
}

func (s *selectInput) Read(ctx context.Context) (*service.Message, service.AckFunc, error) {
	if !s.rows.Next() {
		if err := s.rows.Err(); err != nil {
			return nil, nil, err
		}
		return nil, nil, service.ErrEndOfInput
	}
	vals := make([]any, len(s.cols))
	ptrs := make([]any, len(s.cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := s.rows.Scan(ptrs...); err != nil {
		return nil, nil, err
	}
	obj := make(map[string]any, len(s.cols))
	for i, c := range s.cols {
		if b, ok := vals[i].([]byte); ok {
			obj[c] = string(b)
		} else {
			obj[c] = vals[i]
		}
	}
	msg := service.NewMessage(nil)
	msg.SetStructuredMut(obj)
	return msg, func(context.Context, error) error { return nil }, nil
}

func (s *selectInput) Close(ctx context.Context) error {
	if s.rows != nil {
		_ = s.rows.Close()
	}
	if s.db != nil {
		return s.db.Close()
	}
	return nil
}

func registerSQL() {
	ins := service.NewConfigSpec().
		Field(service.NewStringField("driver")).
		Field(service.NewStringField("dsn")).
		Field(service.NewStringField("table")).
		Field(service.NewStringListField("columns")).
		Field(service.NewBloblangField("args_mapping")).
		Field(service.NewStringField("init_statement").Default("")).
		Field(service.NewIntField("conn_max_open").Default(0)).
		Field(service.NewOutputMaxInFlightField().Default(64)).
		Field(service.NewBatchPolicyField("batching"))
	err := service.RegisterBatchOutput("sql_insert", ins, func(conf *service.ParsedConfig, mgr *service.Resources) (service.BatchOutput, service.BatchPolicy, int, error) {
		o := &insertOutput{}
		var err error
		if o.driver, err = conf.FieldString("driver"); err != nil {
			return nil, service.BatchPolicy{}, 0, err
		}
		if o.dsn, err = conf.FieldString("dsn"); err != nil {
			return nil, service.BatchPolicy{}, 0, err
		}
		if o.table, err = conf.FieldString("table"); err != nil {
			return nil, service.BatchPolicy{}, 0, err
		}
		if o.columns, err = conf.FieldStringList("columns"); err != nil {
			return nil, service.BatchPolicy{}, 0, err
		}
		if o.args, err = conf.FieldBloblang("args_mapping"); err != nil {
			return nil, service.BatchPolicy{}, 0, err
		}
		if o.init, err = conf.FieldString("init_statement"); err != nil {
			return nil, service.BatchPolicy{}, 0, err
		}
		if o.maxOpen, err = conf.FieldInt("conn_max_open"); err != nil {
			return nil, service.BatchPolicy{}, 0, err
		}
		pol, mif, err := outputFlow(conf)
		return o, pol, mif, err
	})
	if err != nil {
		panic(err)
	}
	sel := service.NewConfigSpec().
		Field(service.NewStringField("driver")).
		Field(service.NewStringField("dsn")).
		Field(service.NewStringField("table")).
		Field(service.NewStringListField("columns")).
		Field(service.NewStringField("suffix").Default(""))
	err = service.RegisterInput("sql_select", sel, func(conf *service.ParsedConfig, mgr *service.Resources) (service.Input, error) {
		s := &selectInput{}
		var err error
		if s.driver, err = conf.FieldString("driver"); err != nil {
			return nil, err
		}
		if s.dsn, err = conf.FieldString("dsn"); err != nil {
			return nil, err
		}
		table, err := conf.FieldString("table")
		if err != nil {
			return nil, err
		}
		cols, err := conf.FieldStringList("columns")
		if err != nil {
			return nil, err
		}
		suffix, err := conf.FieldString("suffix")
		if err != nil {
			return nil, err
		}
		s.query = strings.TrimSpace(fmt.Sprintf("SELECT %s FROM %s %s", strings.Join(cols, ", "), table, suffix))
		return service.AutoRetryNacks(s), nil
	})
	if err != nil {
		panic(err)
	}
}
