//! Bounds for the generated impls: only type parameters that fields use get one (as serde's
//! `bound.rs`); a parameter seen only inside `PhantomData` needs none.

use std::collections::HashSet;

use syn::visit::Visit;

use crate::ast::{Container, Data, Fields};

/// Type parameters that appear in some field's type outside `PhantomData`.
pub fn used_type_params(cont: &Container<'_>) -> HashSet<syn::Ident> {
    let params: HashSet<syn::Ident> = cont
        .generics
        .type_params()
        .map(|p| p.ident.clone())
        .collect();
    let mut v = Finder {
        params: &params,
        used: HashSet::new(),
    };
    let mut visit_fields = |f: &Fields<'_>| {
        for field in &f.fields {
            v.visit_type(field.ty);
        }
    };
    match &cont.data {
        Data::Struct(f) => visit_fields(f),
        Data::Union(vs) => vs.iter().for_each(|var| visit_fields(&var.fields)),
        Data::CEnum(_) => {}
    }
    v.used
}

struct Finder<'p> {
    params: &'p HashSet<syn::Ident>,
    used: HashSet<syn::Ident>,
}

impl<'ast> Visit<'ast> for Finder<'_> {
    fn visit_path(&mut self, path: &'ast syn::Path) {
        if let Some(last) = path.segments.last() {
            if last.ident == "PhantomData" {
                return;
            }
        }
        if let Some(first) = path.segments.first() {
            if self.params.contains(&first.ident) {
                self.used.insert(first.ident.clone());
            }
        }
        syn::visit::visit_path(self, path);
    }
}

/// `generics` with `param: bound` added for every used type parameter.
pub fn with_bound(
    cont: &Container<'_>,
    used: &HashSet<syn::Ident>,
    bound: &syn::Path,
) -> syn::Generics {
    let mut g = cont.generics.clone();
    let preds: Vec<syn::WherePredicate> = cont
        .generics
        .type_params()
        .filter(|p| used.contains(&p.ident))
        .map(|p| {
            let id = &p.ident;
            syn::parse_quote!(#id: #bound)
        })
        .collect();
    g.make_where_clause().predicates.extend(preds);
    g
}
