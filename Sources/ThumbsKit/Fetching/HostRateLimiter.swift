/// `--rate R`: at most R requests per second to each host.
///
/// Requests to one host are spaced 1/R seconds apart: each caller reserves the
/// next free slot and sleeps until it. Hosts are independent, so a list on
/// one host and its images on a CDN are each held to R.
actor HostRateLimiter {
    private let interval: Duration?
    private var nextSlot: [String: ContinuousClock.Instant] = [:]

    init(requestsPerSecond: Double?) {
        if let rate = requestsPerSecond, rate > 0, rate.isFinite {
            interval = .nanoseconds(Int64((1e9 / rate).rounded()))
        } else {
            interval = nil
        }
    }

    /// The moment the caller may send its request to `host`.
    private func reserve(_ host: String) -> ContinuousClock.Instant? {
        guard let interval else { return nil }
        let now = ContinuousClock.now
        let slot = max(now, nextSlot[host] ?? now)
        nextSlot[host] = slot + interval
        return slot
    }

    /// Waits until a request to `host` is allowed.
    nonisolated func wait(for host: String) async {
        guard interval != nil, let slot = await reserve(host.lowercased()) else { return }
        if slot > .now {
            try? await Task.sleep(until: slot, clock: .continuous)
        }
    }
}
