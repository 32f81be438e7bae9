// Package doristest is the integration harness every domain's tests
// share: one throwaway MariaDB per test binary (the dorissim/mariadb
// shared instance) and, per test, an in-process Doris simulator in front
// of it, a doris.Runtime and a catalog.Surface over that runtime, so that
// every call goes the way a Host's does (NewEnv, Env.Call, Env.OK,
// Env.Fail, Env.Discover), plus the helpers more than one domain's tests
// use. Tests only: no package of the server imports it.
package doristest
