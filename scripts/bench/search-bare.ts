// The bare server of bench:search, in its own process: a constant route, no auth, no
// database — the ceiling of this machine beside which the search rows are read.
import { Elysia } from 'elysia'

const server = new Elysia().get('/bench/bare', () => 'ok').listen({ port: 0 })
console.log(`listening ${server.server?.port}`)
