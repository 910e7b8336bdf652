//! pre-receive's rule for work-in-progress refs (`assetvc sync`): `refs/assetvc/wip/*`
//! pass unchecked — they hold what people are typing — but when the server knows who
//! pushes (`GL_USERNAME` on GitLab, `GITEA_PUSHER_NAME` on Gitea and Forgejo, `REMOTE_USER`
//! behind an authenticating web server), only to their owner, `refs/assetvc/wip/<user>/…`.

use store::{ref_component, wip_owner, WIP_PREFIX};

use crate::pre_receive::RefUpdate;

/// The variables that name the pusher, in the order they are trusted.
pub const PUSHER_VARIABLES: [&str; 3] = ["GL_USERNAME", "GITEA_PUSHER_NAME", "REMOTE_USER"];

/// The pusher the server names, as a ref component, if it names one.
pub fn pusher_from_env() -> Option<String> {
    PUSHER_VARIABLES
        .iter()
        .filter_map(std::env::var_os)
        .map(|v| v.to_string_lossy().into_owned())
        .find(|v| !v.trim().is_empty())
}

/// What the rule says about one ref.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WipRule {
    /// Not a WIP ref: checked as usual.
    NotWip,
    /// A WIP ref its owner (or an unknown pusher) may update unchecked.
    Pass,
    /// Refused, and why.
    Refuse(String),
}

/// The rule for `refname` pushed by `pusher` (`None`: the server does not say).
pub fn wip_rule(refname: &str, pusher: Option<&str>) -> WipRule {
    if !refname.starts_with(WIP_PREFIX) {
        return WipRule::NotWip;
    }
    let Some(owner) = wip_owner(refname) else {
        return WipRule::Refuse(format!(
            "{refname}: a work-in-progress ref must be {WIP_PREFIX}<user>/<branch>"
        ));
    };
    let Some(pusher) = pusher else {
        return WipRule::Pass;
    };
    let Some(component) = ref_component(pusher) else {
        return WipRule::Refuse(format!(
            "{refname}: the pusher's name {pusher:?} cannot name a ref; work in progress refused"
        ));
    };
    if component == owner {
        WipRule::Pass
    } else {
        WipRule::Refuse(format!(
            "{refname}: work in progress of {owner:?}; {pusher:?} may only push \
             {WIP_PREFIX}{component}/… (set `git config assetvc.user {pusher}`)"
        ))
    }
}

/// Splits `updates` into those to check, the WIP refs that pass the owner rule (their
/// object is still to be checked: [`not_commits`]) and the reasons WIP refs are refused.
pub fn split(
    updates: Vec<RefUpdate>,
    pusher: Option<&str>,
) -> (Vec<RefUpdate>, Vec<RefUpdate>, Vec<String>) {
    let mut checked = Vec::new();
    let mut passed = Vec::new();
    let mut refused = Vec::new();
    for update in updates {
        match wip_rule(&update.name, pusher) {
            WipRule::NotWip => checked.push(update),
            WipRule::Pass => passed.push(update),
            WipRule::Refuse(why) => refused.push(why),
        }
    }
    (checked, passed, refused)
}

/// Why each WIP ref of `wips` is refused for pointing at something other than a commit
/// (a blob or a tree would break `assetvc who` for the whole team, issue #30 item 6).
pub fn not_commits(repo: &store::Repo, wips: &[RefUpdate]) -> Vec<String> {
    wips.iter()
        .filter_map(|w| {
            let id = w.new?;
            let commit = repo.resolve_commit(&id.to_string()).is_ok();
            (!commit).then(|| {
                format!(
                    "{}: work in progress must be a commit; {} is not one",
                    w.name,
                    store::short_id(&id.to_string())
                )
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn owners_pass_others_are_refused() {
        let wip = "refs/assetvc/wip/alice/main";
        assert_eq!(wip_rule(wip, None), WipRule::Pass);
        assert_eq!(wip_rule(wip, Some("alice")), WipRule::Pass);
        assert!(matches!(wip_rule(wip, Some("bob")), WipRule::Refuse(m) if m.contains("alice")));
        assert_eq!(wip_rule("refs/heads/main", Some("bob")), WipRule::NotWip);
        assert!(matches!(
            wip_rule("refs/assetvc/wip/alice", None),
            WipRule::Refuse(_)
        ));
    }

    #[test]
    fn names_that_fold_onto_an_owner_are_refused() {
        let wip = "refs/assetvc/wip/alice/main";
        for pusher in [
            "alice.lock",
            ".alice",
            "alice.",
            " alice",
            "alice..lock",
            "",
        ] {
            assert!(
                matches!(wip_rule(wip, Some(pusher)), WipRule::Refuse(_)),
                "{pusher:?} may not push alice's work in progress"
            );
        }
        let bob = "refs/assetvc/wip/bob%20smith/main";
        assert_eq!(wip_rule(bob, Some("bob smith")), WipRule::Pass);
        assert!(matches!(
            wip_rule(bob, Some("bob/smith")),
            WipRule::Refuse(_)
        ));
    }

    proptest! {
        /// A WIP ref passes for a known pusher exactly when it names that pusher.
        #[test]
        fn only_the_named_user_passes(owner in "[a-z]{1,8}", pusher in "[a-z]{1,8}") {
            let name = format!("refs/assetvc/wip/{owner}/main");
            let passes = wip_rule(&name, Some(&pusher)) == WipRule::Pass;
            prop_assert_eq!(passes, owner == pusher);
        }
    }
}
