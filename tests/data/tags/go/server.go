// Package server runs the HTTP API.
package server

import (
	"context"
	"fmt"
	stdlog "log"
	"net/http"

	. "github.com/acme/shop/internal/assert"
	_ "github.com/lib/pq"
	"github.com/acme/shop/store"
)

// Handler answers one route.
type Handler func(w http.ResponseWriter, r *http.Request)

// Server owns the listener and the routes.
type Server struct {
	*http.Server
	store.Base
	routes map[string]Handler
	log    *stdlog.Logger
}

// Runner is anything that can be started and stopped.
type Runner interface {
	fmt.Stringer
	Run(ctx context.Context) error
	Stop() error
}

type (
	// ID identifies a route.
	ID int
	Alias = ID
	Cache[K comparable, V any] struct {
		items map[K]V
	}
)

// New builds a server listening on addr.
func New(addr string, opts ...Option) *Server {
	s := &Server{Server: &http.Server{Addr: addr}, routes: map[string]Handler{}}
	for _, opt := range opts {
		opt(s)
	}
	return s
}

// Run serves until ctx is done.
func (s *Server) Run(ctx context.Context) error {
	go func() {
		<-ctx.Done()
		s.Shutdown(context.Background())
	}()
	s.log.Printf("listening on %s", s.Addr)
	return s.ListenAndServe()
}

func (s Server) String() string { return fmt.Sprintf("server(%s)", s.Addr) }

func (c *Cache[K, V]) Get(key K) (V, bool) {
	v, ok := c.items[key]
	return v, ok
}

func Map[T, U any](xs []T, f func(T) U) []U {
	out := make([]U, 0, len(xs))
	for _, x := range xs {
		out = append(out, f(x))
	}
	return out
}

var defaultHandler = func(w http.ResponseWriter, r *http.Request) {
	http.Error(w, "not found", http.StatusNotFound)
}

func init() {
	Equal(1, 1)
	_ = Map[int, string]([]int{1}, fmt.Sprint)
}
