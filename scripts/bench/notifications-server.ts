// The notification benchmark's server process: the real app plus the bare constant
// route (the machine's ceiling) on the same Elysia server. Prints `listening <port>`.
import { Elysia } from 'elysia'
import { app } from '../../src/app'

const server = new Elysia()
	.get('/bench/bare', () => 'ok')
	.use(app)
	.listen({ port: 0 })

console.log(`listening ${server.server?.port}`)
