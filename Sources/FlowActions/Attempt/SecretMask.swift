import FlowModel
import FlowPlanning

/// The secret values a task's fields took, so that its failure reasons show them as `***`, as
/// `--dry-run` shows the fields: wherever they appear, also in a URL a redirect led to (a token
/// in a query is often carried along), or in an entry or a folder named under a path.
///
/// The values are found by setting each field beside its shown form (`PlannedTask.shown`):
/// what stands where the shown form has `***`. Every action's failures are masked by it, in
/// `ActionFailure.result(for:)`; nothing else masks a failure.
struct SecretMask: Sendable {
    /// The values, longest first (so that one holding another is masked whole).
    let secrets: [String]

    /// Each field as the task uses it, then as shown.
    init(_ fields: [(String, String)]) {
        let found = fields.filter { $0.0 != $0.1 }.flatMap { SecretName.values(in: $0.0, shownAs: $0.1) }
        secrets = Set(found.filter { !$0.isEmpty }).sorted { $0.count != $1.count ? $0.count > $1.count : $0 < $1 }
    }

    /// The values `task`'s fields took (none for a task shown as it is used).
    init(_ task: PlannedTask) {
        guard let shown = task.shown else {
            self.init([])
            return
        }
        self.init([(task.workdir, shown.workdir)] + Self.fields(of: task.action, shownAs: shown.action))
    }

    func callAsFunction(_ text: String) -> String {
        secrets.isEmpty ? text : SecretName.masked(text, values: secrets)
    }

    /// The fields of an action that may hold a `${NAME}`, each beside its shown form.
    private static func fields(of action: Action, shownAs shown: Action) -> [(String, String)] {
        switch (action, shown) {
        case (.shell(.script(let script)), .shell(.script(let masked))):
            return [(script, masked)]
        case (.shell(.argv(let words)), .shell(.argv(let masked))):
            return Array(zip(words, masked))
        case (.download(let action), .download(let masked)):
            return [(action.url.value, masked.url.value), (action.to.value, masked.to.value)]
                + zip(action.headers, masked.headers).map { ($0.value.value, $1.value.value) }
        case (.decompress(let action), .decompress(let masked)):
            return [(action.from.value, masked.from.value), (action.to.value, masked.to.value)]
        case (.combine(let action), .combine(let masked)):
            return [(action.to.value, masked.to.value)] + zip(action.inputs, masked.inputs).map { ($0.value, $1.value) }
                + [(action.base?.value ?? "", masked.base?.value ?? ""), (action.prefix?.value ?? "", masked.prefix?.value ?? "")]
        default:
            return []
        }
    }
}
