// Server process of the chat benchmark: the real app plus a bare constant route on the
// same Elysia server (the ceiling of this machine). Prints `listening <port>` when ready.
import { Elysia } from 'elysia'
import { app } from '../../src/app'

const server = new Elysia()
	.get('/bench/bare', () => 'ok')
	.use(app)
	.listen({ port: 0 })

console.log(`listening ${server.server?.port}`)
