import { useLocation, useParams } from "@solidjs/router";

/** Protected by the middleware: its marker must never reach a signed-out visitor. */
export default function AdminItem() {
  const params = useParams();
  const location = useLocation();
  return (
    <p>
      PROTECTED-ADMIN-ITEM id=[{params.id}] path=[{location.pathname}]
    </p>
  );
}
