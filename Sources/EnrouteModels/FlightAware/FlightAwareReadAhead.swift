import Foundation

/// Reads and decodes FlightAware files in order on a thread of its own, a few files ahead of
/// the caller, so that decoding the next file overlaps storing this one. Decoding is most of a
/// load and needs no store, so a load of many files takes about as long as decoding them.
///
/// Not Sendable: one caller takes the files in order with `next()`. Stopping early (or dropping
/// the reader) ends the thread after the file it is decoding.
public final class FlightAwareReadAhead {
    /// A file and what reading it gave: the decoded file, or why it was refused.
    public typealias Item = (url: URL, file: Result<FlightAwareFile, FlightAwareFile.Refusal>)

    private let state: State

    /// Starts decoding `urls` in order, at most `depth` decoded files waiting to be taken.
    public init(_ urls: [URL], depth: Int = 2) {
        state = State(urls: urls, depth: max(1, depth))
        guard !urls.isEmpty else { return }
        let state = self.state
        let thread = Thread { state.decodeAll() }
        thread.name = "FlightAwareReadAhead"
        thread.start()
    }

    deinit { state.cancel() }

    /// The next file in order, waiting for it to be decoded; nil after the last or once cancelled.
    public func next() -> Item? { state.take() }

    /// Stops decoding: files not yet taken are not read.
    public func cancel() { state.cancel() }

    /// True once the decoding thread has stopped (every file decoded, or cancelled).
    var isFinished: Bool { state.isFinished }

    /// What the decoding thread and the caller share, guarded by `condition`.
    private final class State: @unchecked Sendable {
        let urls: [URL]
        let depth: Int
        private let condition = NSCondition()
        private var ready: [Result<FlightAwareFile, FlightAwareFile.Refusal>] = []
        private var readyStart = 0
        private var cancelled = false
        private var finished = false
        private var taken = 0

        init(urls: [URL], depth: Int) {
            self.urls = urls
            self.depth = depth
            finished = urls.isEmpty
        }

        var isFinished: Bool {
            condition.lock()
            defer { condition.unlock() }
            return finished
        }

        func cancel() {
            condition.lock()
            cancelled = true
            ready.removeAll()
            readyStart = 0
            condition.broadcast()
            condition.unlock()
        }

        /// The decoding thread's loop: each file decoded outside the lock, then handed over.
        func decodeAll() {
            defer {
                condition.lock()
                finished = true
                condition.broadcast()
                condition.unlock()
            }
            for url in urls {
                condition.lock()
                while ready.count - readyStart >= depth && !cancelled { condition.wait() }
                let stop = cancelled
                condition.unlock()
                if stop { return }
                let file: Result<FlightAwareFile, FlightAwareFile.Refusal>
                do {
                    file = .success(try FlightAwareFile.load(url))
                } catch let refusal as FlightAwareFile.Refusal {
                    file = .failure(refusal)
                } catch {
                    file = .failure(FlightAwareFile.Refusal(file: url.path, path: "$", reason: "cannot be decoded (\(error))"))
                }
                condition.lock()
                if !cancelled { ready.append(file) }
                condition.broadcast()
                condition.unlock()
            }
        }

        /// The next decoded file, waiting for the thread if it is behind; nil once it stopped
        /// with nothing left (cancelled).
        func take() -> Item? {
            condition.lock()
            defer { condition.unlock() }
            while readyStart == ready.count && !finished && !cancelled { condition.wait() }
            guard !cancelled, readyStart < ready.count else { return nil }
            let file = ready[readyStart]
            // Drop the taken file so decoded documents do not accumulate.
            ready[readyStart] = .failure(FlightAwareFile.Refusal(file: "", path: "$", reason: "taken"))
            readyStart += 1
            if readyStart == ready.count { ready.removeAll(keepingCapacity: true); readyStart = 0 }
            let url = urls[taken]
            taken += 1
            condition.broadcast()
            return (url, file)
        }
    }
}
