/// A reply to one request. It carries the request's `"id"` back so that a
/// script can match replies to requests; the daemon builds the reply without
/// it and sets it where the reply is encoded, in one place.
public protocol RequestReply: Encodable, Sendable {
    var id: JSONValue? { get set }
}

extension RequestReply {
    /// This reply, answering a request whose `"id"` was `id`.
    public func answering(_ id: JSONValue?) -> Self {
        var reply = self
        reply.id = id
        return reply
    }
}

extension VersionReply: RequestReply {}
extension ErrorReply: RequestReply {}
extension StatusReply: RequestReply {}
extension SessionsReply: RequestReply {}
extension SessionReply: RequestReply {}
extension DeletedReply: RequestReply {}
extension ConfigReply: RequestReply {}
extension BadgesReply: RequestReply {}
extension CoursesReply: RequestReply {}
extension CourseReply: RequestReply {}
extension CourseDeletedReply: RequestReply {}
extension UploadReply: RequestReply {}
extension WorkoutsReply: RequestReply {}
extension WorkoutReply: RequestReply {}
extension WorkoutDeletedReply: RequestReply {}
