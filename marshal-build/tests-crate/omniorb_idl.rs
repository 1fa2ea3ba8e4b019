// The list `build.rs` compiles and the tests check; `include!`d by both.

/// The files of Debian's `omniorb-idl` (in `/usr/share/idl/omniORB`, `COS/` for the CORBA
/// services) that marshal-build compiles. The others use `any`, `valuetype`, `TypeCode`, a
/// `local` interface or a struct declared inside a member, include a file that does, or
/// include `IOP.idl`, which the package lacks; `tests/omniorb_idl.rs` checks that each of
/// them fails with a located error.
pub const OMNIORB_IDL: &[&str] = &[
    "echo.idl",
    "bootstrap.idl",
    "Naming.idl",
    "COS/CosNaming.idl",
    "COS/TimeBase.idl",
    "COS/CosTime.idl",
    "COS/CosObjectIdentity.idl",
    "COS/CosPersistencePID.idl",
    "COS/CosPersistencePDS.idl",
    "COS/CosPersistencePDS_DA.idl",
    "COS/CosPersistencePO.idl",
    "COS/CosPersistencePOM.idl",
    "COS/Lname-library.idl",
    "COS/RDITestTypes.idl",
];
