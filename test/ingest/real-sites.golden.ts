// Titles of sampled pages of the real sites in real-sites.test.ts (every tenth page of each sample), each
// checked by hand against the page as a browser shows it: the heading at the top of the page's own content
// (Doxygen's title line, rustdoc's and Javadoc's <h1>, a chapter's heading), not the site's or a sidebar's.
// Keyed by path: a page that a later package version no longer ships is not checked.
export const goldenTitles: Readonly<Record<string, string>> = {
  "/usr/share/doc/sphinx-doc/html/development/tutorials/examples/README.html": "Tutorial examples",
  "/usr/share/doc/sphinx-doc/html/internals/authors.html": "Sphinx authors",
  "/usr/share/doc/sphinx-doc/html/tutorial/narrative-documentation.html": "Narrative documentation in Sphinx",
  "/usr/share/doc/sphinx-doc/html/usage/extensions/intersphinx.html":
    "sphinx.ext.intersphinx – Link to other projects’ documentation",
  "/usr/share/doc/python-django-doc/html/howto/windows.html": "How to install Django on Windows",
  "/usr/share/doc/python-django-doc/html/ref/models/instances.html": "Model instance reference",
  "/usr/share/doc/python-django-doc/html/releases/1.6.html": "Django 1.6 release notes",
  "/usr/share/doc/python-django-doc/html/releases/3.1.html": "Django 3.1 release notes",
  "/usr/share/doc/mkdocs/html/dev-guide/api.html": "API reference",
  "/usr/share/doc/mkdocs/html/user-guide/customizing-your-theme.html": "Customizing Your Theme",
  "/usr/share/doc/rust-doc/html/book/2018-edition/ch16-00-concurrency.html": "Fearless Concurrency",
  "/usr/share/doc/rust-doc/html/book/second-edition/ch04-02-references-and-borrowing.html":
    "References & Borrowing",
  "/usr/share/doc/rust-doc/html/nomicon/arc-mutex/arc-and-mutex.html": "Implementing Arc and Mutex",
  "/usr/share/doc/rust-doc/html/rust-by-example/flow_control/match/destructuring/destructure_enum.html":
    "enums",
  "/usr/share/doc/rust-doc/html/core/arch/aarch64/fn.vqdmlal_laneq_s32.html":
    "Function core::arch::aarch64::vqdmlal_laneq_s32",
  "/usr/share/doc/rust-doc/html/core/arch/x86/fn._mm512_mask_fmaddsub_pd.html":
    "Function core::arch::x86::_mm512_mask_fmaddsub_pd",
  "/usr/share/doc/rust-doc/html/core/arch/x86_64/fn._mm_slli_si128.html":
    "Function core::arch::x86_64::_mm_slli_si128",
  "/usr/share/doc/cargo/doc/syn/buffer/index.html": "Module syn::buffer",
  "/usr/share/doc/cargo/doc/syn/punctuated/enum.Pair.html": "Enum syn::punctuated::Pair",
  "/usr/share/doc/cargo/doc/syn/struct.TraitItemType.html": "Struct syn::TraitItemType",
  "/usr/share/doc/cargo/doc/syn/type.AttributeArgs.html": "Type Definition syn::AttributeArgs",
  "/usr/share/doc/libcommons-lang3-java/api/org/apache/commons/lang3/ObjectUtils.html": "Class ObjectUtils",
  "/usr/share/doc/libcommons-lang3-java/api/org/apache/commons/lang3/compare/package-tree.html":
    "Hierarchy For Package org.apache.commons.lang3.compare",
  "/usr/share/doc/libcommons-lang3-java/api/org/apache/commons/lang3/function/FailableToIntBiFunction.html":
    "Interface FailableToIntBiFunction<T,U,E extends Throwable>",
  "/usr/share/doc/libcommons-lang3-java/api/org/apache/commons/lang3/text/class-use/CompositeFormat.html":
    "Uses of Class org.apache.commons.lang3.text.CompositeFormat",
  "/usr/share/doc/libsdl2-doc/html/d1/d59/struct_s_d_l___sys_w_minfo.html": "SDL_SysWMinfo Struct Reference",
  "/usr/share/doc/libsdl2-doc/html/d4/def/_s_d_l__config__emscripten_8h.html":
    "SDL_config_emscripten.h File Reference",
  "/usr/share/doc/libsdl2-doc/html/d8/db4/md__r_e_a_d_m_e_gdk.html": "GDK",
  "/usr/share/doc/libsdl2-doc/html/dc/d7e/_s_d_l__test__fuzzer_8h_source.html": "SDL_test_fuzzer.h",
  "/usr/share/doc/libxerces-c-doc/html/apiDocs-3/DOMImplementationRegistry_8hpp_source.html":
    "DOMImplementationRegistry.hpp",
  "/usr/share/doc/libxerces-c-doc/html/apiDocs-3/XMLBigDecimal_8hpp.html": "XMLBigDecimal.hpp File Reference",
  "/usr/share/doc/libxerces-c-doc/html/apiDocs-3/classDOMLSException-members.html":
    "DOMLSException Member List",
  "/usr/share/doc/libxerces-c-doc/html/apiDocs-3/classXMLEntityResolver-members.html":
    "XMLEntityResolver Member List",
  "/usr/share/doc/gettext/gettext_12.html": "12. The Translator's View",
  "/usr/share/doc/gettext/gettext_21.html": "Program Index",
  "/usr/share/doc/gettext/gettext_30.html": "General Index: Q – Y",
  "/usr/share/R/doc/manual/R-exts.html": "Writing R Extensions",
  "/usr/share/doc/git-doc/git-branch.html": "git-branch(1) Manual Page",
  "/usr/share/doc/git-doc/git-gui.html": "git-gui(1) Manual Page",
  "/usr/share/doc/git-doc/git-repack.html": "git-repack(1) Manual Page",
  "/usr/share/doc/git-doc/gitcore-tutorial.html": "gitcore-tutorial(7) Manual Page",
};
