import FlowModel

/// The secret values a task's fields took (`SecretName`), found by setting each field beside its
/// shown form (`PlannedTask.shown`): what stands where the shown form has `***`. Failure reasons
/// are masked with them (FlowActions' `SecretMask`), and the task state keeps a path holding
/// one as a digest (FlowState's `HiddenPath`).
extension PlannedTask {
    /// The values, longest first (so that one holding another is masked whole); none for a task
    /// shown as it is used.
    package var secretValues: [String] {
        guard let shown else { return [] }
        var fields = [(workdir, shown.workdir)] + Self.fields(of: action, shownAs: shown.action)
        fields += zip(inputs, shown.inputs).map { ($0, $1) } + zip(outputs, shown.outputs).map { ($0, $1) }
        return Self.secretValues(in: fields)
    }

    /// The values found in `fields` (each as used, then as shown), longest first.
    package static func secretValues(in fields: [(String, String)]) -> [String] {
        let found = fields.filter { $0.0 != $0.1 }.flatMap { SecretName.values(in: $0.0, shownAs: $0.1) }
        return SecretName.ordered(found)
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
