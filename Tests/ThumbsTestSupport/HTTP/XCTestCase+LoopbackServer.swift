import XCTest

extension XCTestCase {
    /// A `TestHTTPServer` on 127.0.0.1 whose routes know its own base URL
    /// (for links and redirects to itself), stopped when the test ends.
    public func startServer(_ route: @escaping @Sendable (TestRequest, String) -> TestResponse) async throws -> TestHTTPServer {
        let base = BaseBox()
        let server = try await TestHTTPServer.start { route($0, base.value) }
        base.value = server.base
        addTeardownBlock { await server.stop() }
        return server
    }
}
